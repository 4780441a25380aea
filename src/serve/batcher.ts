/**
 * Batches concurrent requests into one Sampler.generate call per model.
 *
 *   const batcher = new Batcher(sampler, { windowMs: 2 });
 *   const [gens] = await batcher.submit([{ promptIds, n: 4, seed: 7, maxTokens: 32 }]);
 *
 * A batch starts once no request has arrived for `windowMs` (or `maxWaitMs` after its first
 * request, whichever comes first): requests sent together arrive a little apart, because
 * each is parsed and validated on this same thread. Everything that arrives meanwhile, or
 * while the previous batch runs (generate is synchronous, so those requests sit in socket
 * buffers until it returns), goes into the next batch. Batching changes no result: the
 * sampler draws continuation i of a request from Rng.derive(seed, i) and computes each row on
 * its own, so a request gets the same tokens alone or in a crowd (server.test.ts checks it).
 * When a batch throws, its submissions are retried one by one so that only the culprit fails.
 */
import { performance } from 'node:perf_hooks';
import type { Sampler } from '../engine/sampling/generate.js';
import type { GenerateRequest, Generation } from '../engine/sampling/types.js';

interface Submission {
  readonly requests: readonly GenerateRequest[];
  readonly resolve: (generations: Generation[][]) => void;
  readonly reject: (error: unknown) => void;
}

export interface BatcherOptions {
  /** Quiet gap (ms) after the latest arrival that starts a batch. Default 2. */
  readonly windowMs?: number;
  /** Longest wait (ms) of a batch's first request. Default 20. */
  readonly maxWaitMs?: number;
  /** Most continuations decoded together (Sampler's maxBatch). Default 64. */
  readonly maxBatch?: number;
}

export interface BatchStats {
  /** generate calls made. */
  batches: number;
  /** Submissions served. */
  submissions: number;
  /** Largest number of submissions in one generate call. */
  largestBatch: number;
}

export class Batcher {
  readonly stats: BatchStats = { batches: 0, submissions: 0, largestBatch: 0 };
  private readonly sampler: Sampler;
  private readonly windowMs: number;
  private readonly maxWaitMs: number;
  private readonly maxBatch: number;
  private firstArrival = 0;
  private pending: Submission[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(sampler: Sampler, options: BatcherOptions = {}) {
    this.sampler = sampler;
    this.windowMs = options.windowMs ?? 2;
    this.maxWaitMs = options.maxWaitMs ?? 20;
    this.maxBatch = options.maxBatch ?? 64;
  }

  submit(requests: readonly GenerateRequest[]): Promise<Generation[][]> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) this.firstArrival = performance.now();
      this.pending.push({ requests, resolve, reject });
      if (this.timer !== undefined) clearTimeout(this.timer);
      const left = this.maxWaitMs - (performance.now() - this.firstArrival);
      this.timer = setTimeout(() => this.flush(), Math.max(0, Math.min(this.windowMs, left)));
    });
  }

  /** Requests waiting for the next batch. */
  get waiting(): number {
    return this.pending.length;
  }

  private flush(): void {
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.stats.batches += 1;
    this.stats.submissions += batch.length;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
    try {
      const all = this.sampler.generate(batch.flatMap((s) => s.requests), { maxBatch: this.maxBatch });
      let at = 0;
      for (const s of batch) {
        s.resolve(all.slice(at, at + s.requests.length));
        at += s.requests.length;
      }
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else for (const s of batch) this.runAlone(s);
    }
  }

  private runAlone(s: Submission): void {
    try {
      s.resolve(this.sampler.generate(s.requests, { maxBatch: this.maxBatch }));
    } catch (error) {
      s.reject(error);
    }
  }

  /** Fails every waiting submission (server shutdown). */
  close(reason: Error): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const s of this.pending) s.reject(reason);
    this.pending = [];
  }
}
