/**
 * The memory bound on LoRA adapters of a Tinker server (`--max-adapter-mb`): training adapters
 * (weights, gradients, two Adam moments), sampler snapshots and in-memory checkpoints together.
 * A request that would pass it is refused before anything is allocated; work already queued
 * holds its share until it runs, so a burst of create_model requests cannot overshoot.
 *
 *   const budget = new AdapterBudget(limits.maxAdapterBytes, () => adapterMemory(bases, isTraining, 0));
 *   const release = budget.reserve(bytes, 'create_model: a rank-8 adapter');   // throws a 400 when over
 */
import type { LoadedBase } from './base-models.js';
import { LIMIT_FLAGS } from './limits.js';
import { TinkerApiError } from './tinker-api-error.js';

const MB = 1024 * 1024;

/** Bytes the adapters installed on `bases` hold; those `isTraining` names count their gradients and Adam moments too. */
export function adapterMemory(bases: readonly LoadedBase[], isTraining: (name: string) => boolean): number {
  let bytes = 0;
  for (const base of bases) {
    for (const [name, adapter] of base.model.adapters) {
      let values = 0;
      for (const t of adapter.parameters.values()) values += t.size;
      bytes += values * 4 * (isTraining(name) ? 4 : 1);
    }
  }
  return bytes;
}

export class AdapterBudget {
  private pending = 0;

  constructor(
    private readonly limit: number,
    private readonly measure: () => number,
  ) {}

  /** Throws a 400 naming the flag when `bytes` more would pass the limit. */
  check(bytes: number, what: string): void {
    const used = this.measure() + this.pending;
    if (used + bytes > this.limit) {
      throw new TinkerApiError(400, `${what} needs ${(bytes / MB).toFixed(1)} MB, but adapters and checkpoints already hold ${(used / MB).toFixed(1)} MB of this server's ${(this.limit / MB).toFixed(0)} MB (${LIMIT_FLAGS.maxAdapterBytes}); unload_model or delete_checkpoint first, or use a smaller rank`);
    }
  }

  /** Checks, then holds `bytes` until the returned release is called (when the queued work has allocated them). */
  reserve(bytes: number, what: string): () => void {
    this.check(bytes, what);
    this.pending += bytes;
    let released = false;
    return () => {
      if (!released) this.pending -= bytes;
      released = true;
    };
  }
}
