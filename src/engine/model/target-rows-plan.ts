/**
 * Layouts for scoring Tinker-style rows: every input position t scores its own target
 * (targets[t], not necessarily tokens[t + 1]), as forward_backward does for a datum.
 */
import { TroupeError } from '../../util/errors.js';
import type { ScoringPlan, WholeSequencePlan } from './scoring-plan.js';

/** One row of targets to score: logp(targets[t] | tokens[0..t]) for every t (Tinker's datum). */
export interface TargetRow {
  readonly tokens: readonly number[];
  readonly targets: readonly number[];
}

/**
 * The whole-sequence layout for rows whose targets need not be the next input tokens (a
 * Tinker datum scores `target_tokens[t]` at input position t): every position of every row is
 * a head row, right-padded with 0 to the longest row (padding rows only see earlier rows).
 */
export function planTargetRows(rows: readonly TargetRow[]): WholeSequencePlan {
  const L = Math.max(0, ...rows.map((r) => r.tokens.length));
  const tokens = new Int32Array(rows.length * L);
  const positions = new Int32Array(rows.length * L);
  const headRows: number[] = [];
  const targets: number[] = [];
  const offsets = [0];
  rows.forEach((row, b) => {
    checkRow(row, b);
    tokens.set(row.tokens, b * L);
    for (let t = 0; t < L; t++) positions[b * L + t] = t;
    row.targets.forEach((id, t) => {
      headRows.push(b * L + t);
      targets.push(id);
    });
    offsets.push(targets.length);
  });
  return { batch: rows.length, seqLen: L, tokens, positions, headRows: Int32Array.from(headRows), targets: Int32Array.from(targets), offsets };
}

/**
 * The shared-prefix layout (scoring-plan.ts's ScoringPlan) for rows where consecutive ones
 * begin with the same tokens, as a GRPO group's K samples of one prompt do: each run of such
 * rows becomes a group whose common prefix is computed once (the prompt pass), and each row's
 * remaining tokens (at least one) run as a sequence that sees the prefix's keys and values
 * (the response pass); a row that shares with no neighbour runs whole in the prompt pass.
 * Prefix positions score from the prompt pass's rows, each row with its own targets. A row
 * joins the run before it while the common prefix keeps at least half its length; undefined
 * when no two rows would share (then one whole-sequence pass is cheaper).
 */
export function planSharedTargetRows(rows: readonly TargetRow[]): ScoringPlan | undefined {
  rows.forEach(checkRow);
  const groups: Array<{ prefix: number; members: number[] }> = [];
  for (const [b, row] of rows.entries()) {
    const last = groups.at(-1);
    if (last !== undefined) {
      const first = rows[last.members[0]!]!.tokens;
      // Every row of a group of two or more keeps at least one token for the response pass.
      const common = Math.min(commonPrefix(first, row.tokens, last.prefix), row.tokens.length - 1, first.length - 1);
      if (common >= 1 && 2 * common >= last.prefix) {
        last.prefix = common;
        last.members.push(b);
        continue;
      }
    }
    // Alone (so far), the whole row runs in the prompt pass.
    groups.push({ prefix: row.tokens.length, members: [b] });
  }
  if (groups.length === rows.length) return undefined;
  const G = groups.length;
  const P = Math.max(...groups.map((g) => g.prefix));
  const promptTokens = new Int32Array(G * P);
  const promptPositions = new Int32Array(G * P);
  const groupOf: number[] = new Array<number>(rows.length);
  groups.forEach((g, gi) => {
    promptTokens.set(rows[g.members[0]!]!.tokens.slice(0, g.prefix), gi * P);
    for (let t = 0; t < P; t++) promptPositions[gi * P + t] = t;
    for (const b of g.members) groupOf[b] = gi;
  });
  const prefixOf = (b: number) => groups[groupOf[b]!]!.prefix;
  const T = Math.max(...rows.map((row, b) => row.tokens.length - prefixOf(b)));
  const responseTokens = new Int32Array(rows.length * T);
  const responsePositions = new Int32Array(rows.length * T);
  const headRows: number[] = [];
  const targets: number[] = [];
  const offsets = [0];
  rows.forEach((row, b) => {
    const g = groupOf[b]!;
    const p = prefixOf(b);
    for (let j = 0; j < T; j++) {
      responsePositions[b * T + j] = p + j;
      if (p + j < row.tokens.length) responseTokens[b * T + j] = row.tokens[p + j]!;
    }
    row.targets.forEach((id, t) => {
      headRows.push(t < p ? g * P + t : G * P + b * T + (t - p));
      targets.push(id);
    });
    offsets.push(targets.length);
  });
  return {
    groups: G,
    promptSeqLen: P,
    promptLengths: groups.map((g) => g.prefix),
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

function checkRow(row: TargetRow, b: number): void {
  if (row.targets.length !== row.tokens.length) {
    throw new TroupeError('input', `target row ${b} has ${row.tokens.length} tokens but ${row.targets.length} targets; give one target per input token`);
  }
}

/** How many leading tokens a and b share, looking at most `limit` far. */
function commonPrefix(a: readonly number[], b: readonly number[], limit: number): number {
  const n = Math.min(a.length, b.length, limit);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
