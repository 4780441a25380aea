import type { SuccessOf } from './types.js';

/** Whose play a rollout's episodes show (types.ts, SuccessOf): only continuing the best of K > 1 branches (or joint actions) is a search. */
export function successOf(rollout: {
  readonly mode: string;
  readonly k: number;
  readonly continueWith?: string | number | Readonly<Record<string, string | number>>;
  readonly joint?: { readonly expand?: string };
}): SuccessOf {
  // A per-role map continues some roles' best branches: the episodes are still a search's.
  // So does a fraction below 1: the other nodes continue their best.
  const drawn = rollout.continueWith === 'sampled' || rollout.continueWith === 1 || rollout.joint?.expand === 'sampled';
  const search = rollout.mode !== 'independent' && rollout.k > 1 && !drawn;
  return search ? 'best-branch' : 'sampled';
}

/**
 * What the progress line, the summaries and the report call a success rate of training
 * episodes, so nobody reads the best-branch search's success as the policy's.
 * Absent `success_of` (a metrics file written before the field existed): `train success`.
 */
export function trainSuccessName(of: SuccessOf | undefined): string {
  return of === 'best-branch' ? 'tree success' : of === 'sampled' ? 'policy success' : 'train success';
}
