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
import type { Kernels } from '../kernels/types.js';
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
 * Sampling from the whole row (no top-k or top-p) with the uniform draw `uniform`: the same
 * max, weights, sum and draw as the candidate-list path below, in the same order, so the same
 * bits, without the list (and the same as the native kernels' sampleRows). When the
 * score temperature is the sampling one, log sum exp is that pass's own max + log(total) (the
 * same numbers logSumExp would add up again), so the row is exponentiated once, not twice.
 */
function sampleWholeRow(logits: Float32Array, T: number, uniform: number, scoreTemperature: number): TokenChoice {
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
  let u = uniform * total;
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
  return wholeRowChoice(logits, pick, weights[pick] as number, total, max, T, scoreTemperature);
}

/** The two logprobs of token `pick` drawn with weight `weight` of `total` (max: the row's max logit / T). */
function wholeRowChoice(logits: Float32Array, pick: number, weight: number, total: number, max: number, T: number, scoreTemperature: number): TokenChoice {
  const logNormaliser = T === scoreTemperature ? max + Math.log(total) : logSumExp(logits, scoreTemperature);
  return { id: pick, logprob: (logits[pick] as number) / scoreTemperature - logNormaliser, samplingLogprob: Math.log(weight / total) };
}

function isWholeRow(params: SamplingParams, vocab: number): boolean {
  return params.temperature > 0 && !((params.topK > 0 && params.topK < vocab) || params.topP < 1);
}

export function sampleToken(logits: Float32Array, params: SamplingParams, rng: Rng, scoreTemperature = 1): TokenChoice {
  const V = logits.length;
  const modelLogprob = (id: number): number => (logits[id] as number) / scoreTemperature - logSumExp(logits, scoreTemperature);
  if (params.temperature === 0) {
    const id = argmax(logits);
    return { id, logprob: modelLogprob(id), samplingLogprob: 0 };
  }
  const T = params.temperature;
  if (isWholeRow(params, V)) return sampleWholeRow(logits, T, rng.next(), scoreTemperature);
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

/** One row's sampling state for sampleTokenRows. */
export interface RowSampling {
  readonly params: SamplingParams;
  readonly rng: Rng;
}

/** Kernels.sampleRows (the native backend's; see kernels/types.ts). */
export type RowSampler = Required<Pick<Kernels, 'sampleRows'>>;

/**
 * sampleToken for rows.length rows of logits stored back to back (vocab each), row r with
 * rows[r]'s params and Rng: the same tokens, logprob bits and Rng draws as calling sampleToken
 * row by row. With a `sampler` (the native kernels) the whole-row rows are weighed there, in
 * parallel, with V8's exponential: about five times faster a row of a 152k vocabulary.
 *
 * @example
 * const choices = sampleTokenRows(logits, vocab, continuations, 1, kernels.sampleRows ? kernels as RowSampler : undefined);
 */
export function sampleTokenRows(logits: Float32Array, vocab: number, rows: readonly RowSampling[], scoreTemperature = 1, sampler?: RowSampler): TokenChoice[] {
  const rowOf = (r: number): Float32Array => logits.subarray(r * vocab, (r + 1) * vocab);
  if (sampler === undefined) return rows.map((row, r) => sampleToken(rowOf(r), row.params, row.rng, scoreTemperature));
  const choices = new Array<TokenChoice>(rows.length);
  const temperature = new Float64Array(rows.length);
  const uniform = new Float64Array(rows.length);
  const whole: number[] = [];
  rows.forEach((row, r) => {
    if (!isWholeRow(row.params, vocab) || !Number.isFinite(row.params.temperature)) {
      choices[r] = sampleToken(rowOf(r), row.params, row.rng, scoreTemperature);
      return;
    }
    temperature[r] = row.params.temperature;
    uniform[r] = row.rng.next();
    whole.push(r);
  });
  const out = new Float64Array(4 * rows.length);
  if (whole.length === rows.length) {
    sampler.sampleRows(logits, rows.length, vocab, temperature, uniform, out);
  } else {
    // Mixed requests (rare): the whole-row ones one at a time, as the native call takes contiguous rows.
    for (const r of whole) sampler.sampleRows(rowOf(r), 1, vocab, temperature.subarray(r, r + 1), uniform.subarray(r, r + 1), out.subarray(4 * r, 4 * r + 4));
  }
  for (const r of whole) {
    const T = temperature[r] as number;
    const pick = out[4 * r] as number;
    choices[r] = pick < 0
      ? sampleWholeRow(rowOf(r), T, uniform[r] as number, scoreTemperature)
      : wholeRowChoice(rowOf(r), pick, out[4 * r + 1] as number, out[4 * r + 2] as number, out[4 * r + 3] as number, T, scoreTemperature);
  }
  return choices;
}
