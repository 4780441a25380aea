/**
 * The candidates of top-k / top-p sampling without sorting the whole row.
 *
 * The rule being reproduced: order the vocabulary most likely first (equal logits keep the
 * lower id first), keep the first k, weigh each kept token by exp(logit / T - max), then keep
 * the shortest prefix whose weights (summed in that order) reach p of the total. Sorting 151,936
 * ids with a comparator costs ~120 ms a token; this file gets the same ids, in the same order,
 * with the same float64 weights and sums, sorting less or more cheaply:
 *
 * - top-k: a bounded heap of the k best ids in one pass over the row, then those k sorted.
 * - top-p without top-k: the total is a float64 sum over the whole row in sorted order, so
 *   every id is still sorted, but by a stable radix sort of the logits' bits (radix-order.ts,
 *   linear in the vocabulary), which gives exactly the comparator's order.
 *
 * A row with a NaN has no consistent order (the comparator is not one), so it keeps the old
 * full sort, whose result then depends on the sort algorithm alone.
 */
import { idsByLogit } from './radix-order.js';

export interface Candidates {
  /** Kept token ids, most likely first. */
  readonly ids: number[];
  /** exp(logit / T - max) of each kept id, in the same order. */
  readonly weights: number[];
}

/** Most likely first; equal logits keep the lower id first. */
const byLogit = (logits: Float32Array) => (a: number, b: number): number => (logits[b] as number) - (logits[a] as number) || a - b;

function hasNaN(logits: Float32Array): boolean {
  for (let i = 0; i < logits.length; i++) if (logits[i] !== logits[i]) return true;
  return false;
}

/** Heap of ids with the worst (lowest logit, then highest id) at the root. */
function worse(logits: Float32Array, a: number, b: number): boolean {
  const la = logits[a] as number;
  const lb = logits[b] as number;
  return la < lb || (la === lb && a > b);
}

function siftDown(heap: Int32Array, size: number, logits: Float32Array, at: number): void {
  for (;;) {
    const left = 2 * at + 1;
    if (left >= size) return;
    const right = left + 1;
    const child = right < size && worse(logits, heap[right] as number, heap[left] as number) ? right : left;
    if (!worse(logits, heap[child] as number, heap[at] as number)) return;
    const swap = heap[at] as number;
    heap[at] = heap[child] as number;
    heap[child] = swap;
    at = child;
  }
}

/** The k best ids, most likely first (k < logits.length, no NaN). */
export function topKIds(logits: Float32Array, k: number): number[] {
  const heap = new Int32Array(k);
  for (let i = 0; i < k; i++) heap[i] = i;
  for (let at = (k >> 1) - 1; at >= 0; at--) siftDown(heap, k, logits, at);
  // Ids come in increasing order, so an id whose logit only equals the root's ranks below it.
  let threshold = logits[heap[0] as number] as number;
  for (let i = k; i < logits.length; i++) {
    if ((logits[i] as number) > threshold) {
      heap[0] = i;
      siftDown(heap, k, logits, 0);
      threshold = logits[heap[0] as number] as number;
    }
  }
  return Array.from(heap).sort(byLogit(logits));
}

/** The prefix the top-p rule keeps of `weights` (most likely first): at least one. */
function nucleusLength(weights: ArrayLike<number>, count: number, topP: number, total: number): number {
  let cumulative = 0;
  let keep = 0;
  while (keep < count && (keep === 0 || cumulative < topP * total)) cumulative += weights[keep++] as number;
  return keep;
}

function sumInOrder(weights: number[]): number {
  return weights.reduce((a, b) => a + b, 0);
}

/** Weights of ids already in order; top-p (if any) applied to them. */
function weighAndCut(logits: Float32Array, ids: number[], T: number, topP: number): Candidates {
  let max = -Infinity;
  for (const i of ids) max = Math.max(max, (logits[i] as number) / T);
  const weights = ids.map((i) => Math.exp((logits[i] as number) / T - max));
  if (topP >= 1) return { ids, weights };
  const keep = nucleusLength(weights, weights.length, topP, sumInOrder(weights));
  return { ids: ids.slice(0, keep), weights: weights.slice(0, keep) };
}

/** The old rule itself: sort every id by comparator. For NaN rows only. */
function sortedIds(logits: Float32Array): number[] {
  return Array.from({ length: logits.length }, (_, i) => i).sort(byLogit(logits));
}

/** Reused by topPOnly: the weights of the whole row in sorted order. */
let descendingWeights = new Float64Array(0);

/** Top-p over the whole row (no NaN): every id in order, but sorted by radix, not by comparator. */
function topPOnly(logits: Float32Array, T: number, topP: number): Candidates {
  const V = logits.length;
  const order = idsByLogit(logits);
  let max = -Infinity;
  for (let i = 0; i < V; i++) max = Math.max(max, (logits[i] as number) / T);
  if (descendingWeights.length < V) descendingWeights = new Float64Array(V);
  const weights = descendingWeights;
  let total = 0;
  for (let j = 0; j < V; j++) {
    const w = Math.exp((logits[order[j] as number] as number) / T - max);
    weights[j] = w;
    total += w;
  }
  const keep = nucleusLength(weights, V, topP, total);
  return { ids: Array.from(order.subarray(0, keep)), weights: Array.from(weights.subarray(0, keep)) };
}

/** Above this share of the vocabulary a heap costs more than the radix sort. */
const HEAP_SHARE = 1 / 8;

/** The truncated candidates for top-k (0 or >= V disables) and top-p (1 disables). */
export function selectCandidates(logits: Float32Array, T: number, topK: number, topP: number): Candidates {
  const V = logits.length;
  const k = topK > 0 && topK < V ? topK : V;
  if (hasNaN(logits)) return weighAndCut(logits, sortedIds(logits).slice(0, k), T, topP);
  if (k < V) return weighAndCut(logits, k <= V * HEAP_SHARE ? topKIds(logits, k) : Array.from(idsByLogit(logits).subarray(0, k)), T, topP);
  return topPOnly(logits, T, topP);
}
