import { TroupeError } from '../../util/errors.js';

/** One sequence to score: logprobs of responseIds given promptIds (and earlier response ids). */
export interface ScoringPair {
  readonly promptIds: readonly number[];
  readonly responseIds: readonly number[];
}

/**
 * How a batch of (prompt, response) pairs is laid out for the model, computed once as plain
 * data. Pairs with byte-identical prompts form one group, and each distinct prompt is run
 * ONCE (the "prompt pass", one row block per group); every response of the group then runs
 * as its own sequence whose attention sees that prompt's keys and values as a prefix (the
 * "response pass"). For a GRPO group of K this costs one prompt plus K responses instead of
 * K copies of the prompt, and the prompt's gradient is the sum over its K responses.
 *
 * Response token j is predicted from the row before it: token 0 from the prompt's last row,
 * token j > 0 from response input row j - 1. So the response pass only needs each response
 * without its last token.
 */
export interface ScoringPlan {
  /** Distinct prompts G and their padded length P. */
  readonly groups: number;
  readonly promptSeqLen: number;
  readonly promptLengths: readonly number[];
  /** (G*P) ids, right-padded with 0, and their positions 0..P-1. */
  readonly promptTokens: Int32Array;
  readonly promptPositions: Int32Array;
  /** Group (prompt pass sequence) of each pair. */
  readonly groupOf: readonly number[];
  /** Response pass: B sequences of T = max(len - 1) rows, positions continue the prompt. */
  readonly responseSeqLen: number;
  readonly responseTokens: Int32Array;
  readonly responsePositions: Int32Array;
  /** Rows of [promptHidden (G*P rows); responseHidden (B*T rows)] whose logits are needed. */
  readonly headRows: Int32Array;
  /** The token each head row must score, and where pair b's tokens start: offsets[b]..offsets[b+1]. */
  readonly targets: Int32Array;
  readonly offsets: readonly number[];
}

export function planScoring(pairs: readonly ScoringPair[]): ScoringPlan {
  const groupIndex = new Map<string, number>();
  const prompts: (readonly number[])[] = [];
  const groupOf: number[] = [];
  requirePrompts(pairs);
  for (const pair of pairs) {
    const key = pair.promptIds.join(',');
    let g = groupIndex.get(key);
    if (g === undefined) {
      g = prompts.length;
      groupIndex.set(key, g);
      prompts.push(pair.promptIds);
    }
    groupOf.push(g);
  }
  const P = Math.max(0, ...prompts.map((p) => p.length));
  const promptTokens = new Int32Array(prompts.length * P);
  const promptPositions = new Int32Array(prompts.length * P);
  prompts.forEach((p, g) => {
    promptTokens.set(p, g * P);
    for (let t = 0; t < P; t++) promptPositions[g * P + t] = t;
  });

  const B = pairs.length;
  const T = Math.max(0, ...pairs.map((p) => p.responseIds.length - 1));
  const responseTokens = new Int32Array(B * T);
  const responsePositions = new Int32Array(B * T);
  const headRows: number[] = [];
  const targets: number[] = [];
  const offsets = [0];
  pairs.forEach((pair, b) => {
    const g = groupOf[b]!;
    const lp = prompts[g]!.length;
    const r = pair.responseIds;
    for (let t = 0; t < T; t++) {
      responsePositions[b * T + t] = lp + t;
      if (t < r.length - 1) responseTokens[b * T + t] = r[t]!;
    }
    for (let j = 0; j < r.length; j++) {
      headRows.push(j === 0 ? g * P + lp - 1 : prompts.length * P + b * T + (j - 1));
      targets.push(r[j]!);
    }
    offsets.push(targets.length);
  });
  return {
    groups: prompts.length,
    promptSeqLen: P,
    promptLengths: prompts.map((p) => p.length),
    promptTokens,
    promptPositions,
    groupOf,
    responseSeqLen: T,
    responseTokens,
    responsePositions,
    headRows: Int32Array.from(headRows),
    targets: Int32Array.from(targets),
    offsets,
  };
}

/**
 * The layout when no two pairs share a prompt, so a prompt pass would save nothing: each
 * pair runs as ONE sequence, its prompt then its response without the last token, right-padded
 * with 0 to the longest (padding rows only see earlier rows). One pass instead of two saves a
 * read of every weight (a one-token prompt pass is a matrix-vector product per weight) and the
 * prompt pass's kernel calls; the rows never exceed the two passes' (max(lp + lr) <= max lp +
 * max lr). Response token j is predicted from row lp - 1 + j.
 */
export interface WholeSequencePlan {
  readonly batch: number;
  readonly seqLen: number;
  /** (batch * seqLen) ids and their positions 0..seqLen-1. */
  readonly tokens: Int32Array;
  readonly positions: Int32Array;
  /** As in ScoringPlan, over the batch * seqLen rows. */
  readonly headRows: Int32Array;
  readonly targets: Int32Array;
  readonly offsets: readonly number[];
}

export function planWholeSequences(pairs: readonly ScoringPair[]): WholeSequencePlan {
  requirePrompts(pairs);
  const inputs = pairs.map((p) => [...p.promptIds, ...p.responseIds.slice(0, -1)]);
  const L = Math.max(0, ...inputs.map((ids) => ids.length));
  const tokens = new Int32Array(pairs.length * L);
  const positions = new Int32Array(pairs.length * L);
  const headRows: number[] = [];
  const targets: number[] = [];
  const offsets = [0];
  pairs.forEach((pair, b) => {
    tokens.set(inputs[b]!, b * L);
    for (let t = 0; t < L; t++) positions[b * L + t] = t;
    const lp = pair.promptIds.length;
    pair.responseIds.forEach((id, j) => {
      headRows.push(b * L + lp - 1 + j);
      targets.push(id);
    });
    offsets.push(targets.length);
  });
  return { batch: pairs.length, seqLen: L, tokens, positions, headRows: Int32Array.from(headRows), targets: Int32Array.from(targets), offsets };
}

function requirePrompts(pairs: readonly ScoringPair[]): void {
  pairs.forEach((pair, b) => {
    if (pair.promptIds.length === 0) {
      throw new TroupeError('input', `scoring pair ${b} has an empty prompt; the first response token needs at least one prompt token (e.g. a BOS id)`);
    }
  });
}

