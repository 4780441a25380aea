/**
 * Batches concurrent requests into one Sampler call per model.
 *
 *   const batcher = new Batcher(sampler, { windowMs: 2 });
 *   const [gens] = await batcher.submit([{ promptIds, n: 4, seed: 7, maxTokens: 32 }]);
 *   await batcher.submit(requests, (t) => send(t));   // streaming: each token as it is drawn
 *
 * A batch starts once no request has arrived for `windowMs` (or `maxWaitMs` after its first
 * request, whichever comes first): requests sent together arrive a little apart, because
 * each is parsed and validated on this same thread. Everything that arrives meanwhile, or
 * while the previous batch runs, goes into the next batch; one batch runs at a time.
 *
 * A batch without a streaming submission runs `Sampler.generate` straight through (no
 * event-loop turns, so non-streaming traffic pays nothing for streaming). A batch with one
 * runs `generateLive`, which returns to the event loop after every decode step: each token
 * reaches its submission's listener, and the server writes it, while the batch goes on.
 * Batching changes no result: the sampler draws continuation i of a request from
 * Rng.derive(seed, i) and computes each row on its own, so a request gets the same tokens
 * alone or in a crowd, streamed or not (server.test.ts checks it). When a batch throws, its
 * submissions are retried one by one so that only the culprit fails; a submission that has
 * already streamed tokens is failed instead (its client has seen part of an answer).
 */
import { performance } from 'node:perf_hooks';
import type { Sampler } from '../engine/sampling/generate.js';
import type { GenerateRequest, Generation, TokenEvent } from '../engine/sampling/types.js';

/** A submission's token listener; `request` counts within the submission's own requests. */
export type TokenListener = (event: TokenEvent) => void;

interface Submission {
  readonly requests: readonly GenerateRequest[];
  readonly onToken?: TokenListener;
  /** Whether a token has been passed to `onToken` (then a retry would repeat it). */
  streamed: boolean;
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
  /** Sampler calls made. */
  batches: number;
  /** Submissions served. */
  submissions: number;
  /** Largest number of submissions in one sampler call. */
  largestBatch: number;
  /** Tokens sampled so far, counted as each is drawn (also inside a running batch). */
  tokens: number;
}

export class Batcher {
  readonly stats: BatchStats = { batches: 0, submissions: 0, largestBatch: 0, tokens: 0 };
  private readonly sampler: Sampler;
  private readonly windowMs: number;
  private readonly maxWaitMs: number;
  private readonly maxBatch: number;
  private firstArrival = 0;
  private pending: Submission[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** A batch is on the sampler; the next one starts when it ends. */
  private running = false;

  constructor(sampler: Sampler, options: BatcherOptions = {}) {
    this.sampler = sampler;
    this.windowMs = options.windowMs ?? 2;
    this.maxWaitMs = options.maxWaitMs ?? 20;
    this.maxBatch = options.maxBatch ?? 64;
  }

  /** Generations of `requests`; `onToken` (streaming) sees each of their tokens as it is drawn. */
  submit(requests: readonly GenerateRequest[], onToken?: TokenListener): Promise<Generation[][]> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) this.firstArrival = performance.now();
      this.pending.push({ requests, streamed: false, resolve, reject, ...(onToken ? { onToken } : {}) });
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
    if (this.running) return; // the running batch flushes again when it ends
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.stats.batches += 1;
    this.stats.submissions += batch.length;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
    this.running = true;
    void this.runBatch(batch).finally(() => {
      this.running = false;
      if (this.pending.length > 0 && this.timer === undefined) this.flush();
    });
  }

  private async runBatch(batch: readonly Submission[]): Promise<void> {
    try {
      const all = await this.sample(batch);
      let at = 0;
      for (const s of batch) {
        s.resolve(all.slice(at, at + s.requests.length));
        at += s.requests.length;
      }
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else {
        for (const s of batch) {
          if (s.streamed) s.reject(error);
          else await this.runBatch([s]);
        }
      }
    }
  }

  /** One sampler call for the batch; live (event loop between steps) only when someone streams. */
  private sample(batch: readonly Submission[]): Generation[][] | Promise<Generation[][]> {
    const owner_R: Submission[] = []; // the submission of each request of the call
    const first = new Map<Submission, number>(); // where its requests start
    for (const s of batch) {
      first.set(s, owner_R.length);
      for (let i = 0; i < s.requests.length; i++) owner_R.push(s);
    }
    const requests = batch.flatMap((s) => s.requests);
    const onToken = (event: TokenEvent): void => {
      this.stats.tokens += 1;
      const s = owner_R[event.request]!;
      if (s.onToken === undefined) return;
      s.streamed = true;
      s.onToken({ ...event, request: event.request - first.get(s)! });
    };
    const options = { maxBatch: this.maxBatch, onToken };
    return batch.some((s) => s.onToken !== undefined) ? this.sampler.generateLive(requests, options) : this.sampler.generate(requests, options);
  }

  /** Fails every waiting submission (server shutdown). */
  close(reason: Error): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const s of this.pending) s.reject(reason);
    this.pending = [];
  }
}
