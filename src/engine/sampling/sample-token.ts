/**
 * Choosing the next token from one row of logits: temperature, then top-k, then top-p
 * (nucleus), then one uniform draw from the request's seeded Rng (exactly one draw per
 * token, so a continuation's tokens depend only on its own stream).
 *
 * Two logprobs come back for the chosen token:
 * - `logprob`: under the model's own, untruncated distribution softmax(logits / T_score),
 *   with T_score = `scoreTemperature` (default 1). This is what the learner recomputes
 *   (LlamaModel.tokenLogprobs scores at temperature 1), so it is the number to store for
 *   PPO ratios and KL: no train/inference mismatch, whatever temperature / top-k / top-p
 *   the rollout used.
 * - `samplingLogprob`: under the distribution actually sampled from (temperature, top-k and
 *   top-p applied and renormalised); 0 for greedy. For off-policy corrections and metrics.
 *
 * Ties are broken towards the lower token id everywhere, so temperature 0 (greedy) and
 * top-k = 1 pick the same token.
 */
import type { Rng } from '../../util/rng.js';
import { selectCandidates } from './select-candidates.js';

export interface SamplingParams {
  /** 0 = greedy (argmax). */
  readonly temperature: number;
  /** Keep the k most likely tokens; 0 (or >= vocab) disables. */
  readonly topK: number;
  /** Keep the smallest set of most likely tokens whose probability reaches p; 1 disables. */
  readonly topP: number;
}

export interface TokenChoice {
  readonly id: number;
  readonly logprob: number;
  readonly samplingLogprob: number;
}

/** log sum_i exp(logits[i] / temperature), in float64. */
function logSumExp(logits: Float32Array, temperature: number): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, (logits[i] as number) / temperature);
  let total = 0;
  for (let i = 0; i < logits.length; i++) total += Math.exp((logits[i] as number) / temperature - max);
  return max + Math.log(total);
}

function argmax(logits: Float32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if ((logits[i] as number) > (logits[best] as number)) best = i;
  return best;
}

/** Reused by sampleWholeRow: one row's weights (a vocabulary of 151,936 is 1.2 MB a token). */
let rowWeights = new Float64Array(0);

/**
 * Sampling from the whole row (no top-k or top-p): the same max, weights, sum and draw as the
 * candidate-list path below, in the same order, so the same bits, without the list. When the
 * score temperature is the sampling one, log sum exp is that pass's own max + log(total) (the
 * same numbers logSumExp would add up again), so the row is exponentiated once, not twice.
 */
function sampleWholeRow(logits: Float32Array, T: number, rng: Rng, scoreTemperature: number): TokenChoice {
  const V = logits.length;
  if (rowWeights.length < V) rowWeights = new Float64Array(V);
  const weights = rowWeights;
  let max = -Infinity;
  for (let i = 0; i < V; i++) max = Math.max(max, (logits[i] as number) / T);
  let total = 0;
  for (let i = 0; i < V; i++) {
    const w = Math.exp((logits[i] as number) / T - max);
    weights[i] = w;
    total += w;
  }
  let u = rng.next() * total;
  // Fallback for rounding leaving u just above the sum: the last token with any weight.
  let pick = V - 1;
  while (pick > 0 && weights[pick] === 0) pick--;
  for (let j = 0; j < V; j++) {
    u -= weights[j] as number;
    if (u < 0) {
      pick = j;
      break;
    }
  }
  const logNormaliser = T === scoreTemperature ? max + Math.log(total) : logSumExp(logits, scoreTemperature);
  return { id: pick, logprob: (logits[pick] as number) / scoreTemperature - logNormaliser, samplingLogprob: Math.log((weights[pick] as number) / total) };
}

export function sampleToken(logits: Float32Array, params: SamplingParams, rng: Rng, scoreTemperature = 1): TokenChoice {
  const V = logits.length;
  const modelLogprob = (id: number): number => (logits[id] as number) / scoreTemperature - logSumExp(logits, scoreTemperature);
  if (params.temperature === 0) {
    const id = argmax(logits);
    return { id, logprob: modelLogprob(id), samplingLogprob: 0 };
  }
  const T = params.temperature;
  const truncates = (params.topK > 0 && params.topK < V) || params.topP < 1;
  if (!truncates) return sampleWholeRow(logits, T, rng, scoreTemperature);
  // The same ids, order and weights as sorting the row most likely first (select-candidates.ts).
  const { ids: candidates, weights } = selectCandidates(logits, T, params.topK, params.topP);
  const total = weights.reduce((a, b) => a + b, 0);
  let u = rng.next() * total;
  // Fallback for rounding leaving u just above the sum: the last token with any weight.
  let pick = candidates.length - 1;
  while (pick > 0 && weights[pick] === 0) pick--;
  for (let j = 0; j < candidates.length; j++) {
    u -= weights[j] as number;
    if (u < 0) {
      pick = j;
      break;
    }
  }
  const id = candidates[pick] as number;
  return { id, logprob: modelLogprob(id), samplingLogprob: Math.log((weights[pick] as number) / total) };
}
