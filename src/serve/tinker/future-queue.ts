/**
 * The futures of the Tinker server and the order their work runs in.
 *
 *   const queue = new FutureQueue({ gapTimeoutMs: 60_000 });
 *   const id = queue.submit({ model: 'sess:train:0', seqId: 1 }, () => trainStep());
 *   const answer = await queue.retrieve(id, 10_000);   // done | failed | pending (try again)
 *
 * Work runs one job at a time (the engine uses the whole CPU), each job in its own macrotask
 * so HTTP requests (polls, heartbeats) are answered between jobs. Jobs of one training model
 * run in `seq_id` order (1, 2, 3, ...): a job whose predecessor has not arrived waits; if the
 * gap lasts `gapTimeoutMs` the waiting jobs fail (a client that skipped a seq_id gets an
 * error, not a hang). A job with an already used seq_id fails at once. Jobs without a model
 * or seq_id run in arrival order.
 *
 * With `coalesce`, jobs submitted with a batch key (sampling) that are waiting together run
 * as ONE call of their batch runner, as an inference server batches concurrent requests: the
 * engine's products are then a few large ones instead of many small ones. A batch that fails
 * as a whole is rerun job by job, so each request gets its own answer or error.
 */
import { TroupeError } from '../../util/errors.js';
import { TinkerApiError } from './tinker-api-error.js';

export type FutureAnswer =
  | { readonly state: 'done'; readonly value: unknown }
  | { readonly state: 'failed'; readonly error: TinkerApiError }
  | { readonly state: 'pending' };

interface Entry {
  answer: FutureAnswer;
  readonly waiters: Array<() => void>;
}

interface Job {
  readonly id: string;
  readonly run: () => unknown;
  readonly batch?: BatchSpec;
}

/**
 * A job's work in pieces (a generator that pauses between them): the queue runs one piece per
 * macrotask, so a long job (a large forward_backward) never keeps the server from answering
 * health checks and polls; other jobs still wait for it to finish, in order.
 */
export class Stepwise<R = unknown> {
  constructor(
    readonly steps: Generator<void, R, void>,
    readonly finish: (result: R) => unknown,
  ) {}
}

/** How a job can run together with others of the same key: `runMany` answers each item in order (a value or an Error). */
export interface BatchSpec<T = unknown> {
  readonly key: string;
  readonly item: T;
  readonly runMany: (items: T[]) => unknown[];
}

interface ModelLine {
  next: number;
  readonly waiting: Map<number, Job>;
  gapTimer?: NodeJS.Timeout;
}

export interface FutureQueueOptions {
  /** How long a job may wait for a missing earlier seq_id. Default 60 s. */
  readonly gapTimeoutMs?: number;
  /** How long a finished result stays retrievable (the client may retry the poll). Default 300 s. */
  readonly keepMs?: number;
  /** Run waiting jobs of one batch key together (see above). Default false: every job alone. */
  readonly coalesce?: boolean;
  /** With coalesce: how long a batchable job at the head waits for others to join it. Default 2 ms. */
  readonly coalesceWindowMs?: number;
  /** Hears of every job that failed by the server's fault (5xx), which the client alone would see otherwise. */
  readonly onServerError?: (error: TinkerApiError) => void;
}

export class FutureQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly lines = new Map<string, ModelLine>();
  private readonly ready: Job[] = [];
  private running = false;
  private counter = 0;
  private readonly gapTimeoutMs: number;
  private readonly keepMs: number;
  private readonly coalesce: boolean;
  private readonly coalesceWindowMs: number;
  private readonly onServerError: ((error: TinkerApiError) => void) | undefined;
  /** The most jobs run together so far (1 without coalesce): what batching achieved. */
  largestBatch = 0;

  constructor(options: FutureQueueOptions = {}) {
    this.gapTimeoutMs = options.gapTimeoutMs ?? 60_000;
    this.keepMs = options.keepMs ?? 300_000;
    this.coalesce = options.coalesce ?? false;
    this.coalesceWindowMs = options.coalesceWindowMs ?? 2;
    this.onServerError = options.onServerError;
  }

  /** Queues `run`; returns the request id the client polls. */
  submit<T>(order: { model?: string; seqId?: number | null }, run: () => unknown, batch?: BatchSpec<T>): string {
    const id = `req-${++this.counter}`;
    this.entries.set(id, { answer: { state: 'pending' }, waiters: [] });
    const job: Job = { id, run, ...(batch ? { batch: batch as BatchSpec } : {}) };
    const { model, seqId } = order;
    if (model === undefined || seqId === undefined || seqId === null) {
      this.ready.push(job);
    } else {
      const line = this.lines.get(model) ?? { next: 1, waiting: new Map<number, Job>() };
      this.lines.set(model, line);
      if (seqId < line.next || line.waiting.has(seqId)) {
        this.settle(id, { state: 'failed', error: new TinkerApiError(400, `seq_id ${seqId} of model ${model} was already used (the next expected is ${line.next}); give every training request of a model the next seq_id`) });
        return id;
      }
      line.waiting.set(seqId, job);
      this.release(model, line);
    }
    this.pump();
    return id;
  }

  /**
   * A future for work that runs elsewhere (a sampling thread): answered when `work` settles,
   * outside the one-job-at-a-time line.
   */
  track(work: Promise<unknown>): string {
    const id = `req-${++this.counter}`;
    this.entries.set(id, { answer: { state: 'pending' }, waiters: [] });
    work.then(
      (value) => this.settle(id, { state: 'done', value }),
      (error: unknown) => this.settle(id, { state: 'failed', error: asApiError(error) }),
    );
    return id;
  }

  /** The answer of a future, waiting up to `waitMs` for a pending one (long polling). */
  async retrieve(id: string, waitMs: number): Promise<FutureAnswer | undefined> {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.answer.state === 'pending' && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        entry.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return entry.answer;
  }

  /** Forgets a model's ordering line (the model was unloaded); its waiting jobs fail. */
  dropModel(model: string): void {
    const line = this.lines.get(model);
    if (!line) return;
    clearTimeout(line.gapTimer);
    for (const job of line.waiting.values()) this.settle(job.id, { state: 'failed', error: new TinkerApiError(400, `model ${model} was unloaded before this request ran`) });
    this.lines.delete(model);
  }

  /** Moves the model's jobs that are next in line to the ready queue. */
  private release(model: string, line: ModelLine): void {
    while (line.waiting.has(line.next)) {
      this.ready.push(line.waiting.get(line.next)!);
      line.waiting.delete(line.next);
      line.next++;
    }
    clearTimeout(line.gapTimer);
    line.gapTimer = undefined;
    if (line.waiting.size === 0) return;
    line.gapTimer = setTimeout(() => {
      const missing = line.next;
      for (const job of line.waiting.values()) {
        this.settle(job.id, { state: 'failed', error: new TinkerApiError(400, `model ${model}: seq_id ${missing} never arrived within ${this.gapTimeoutMs} ms, so later requests cannot run in order; resend from seq_id ${missing}`) });
      }
      line.waiting.clear();
    }, this.gapTimeoutMs);
    line.gapTimer.unref();
  }

  private pump(): void {
    if (this.running || this.ready.length === 0) return;
    this.running = true;
    // A macrotask per job: polls and heartbeats get answered between jobs. A batchable job
    // gives concurrent requests a moment to arrive and join it.
    const wait = this.coalesce && this.ready[0]!.batch !== undefined && this.coalesceWindowMs > 0;
    const later = (run: () => void) => (wait ? setTimeout(run, this.coalesceWindowMs) : setImmediate(run));
    later(() => {
      const job = this.ready.shift()!;
      const stepwise = this.runJob(job);
      if (stepwise) return this.continueStepwise(job, stepwise);
      this.running = false;
      this.pump();
    });
  }

  /**
   * Runs the next piece of a Stepwise job in its own macrotask, then the next job when it ends.
   * Sampling jobs (those with a batch key) that wait run between the pieces: they read saved
   * sampler weights, never the weights a training job is changing, and a rollout's requests
   * come one turn after another, so each would otherwise wait for the whole update.
   */
  private continueStepwise(job: Job, work: Stepwise): void {
    setImmediate(() => {
      const sampling = this.ready.find((j) => j.batch !== undefined);
      if (sampling !== undefined) {
        this.ready.splice(this.ready.indexOf(sampling), 1);
        this.runJob(sampling);
        return this.continueStepwise(job, work);
      }
      try {
        const next = work.steps.next();
        if (!next.done) return this.continueStepwise(job, work);
        this.settle(job.id, { state: 'done', value: work.finish(next.value) });
      } catch (error) {
        this.settle(job.id, { state: 'failed', error: asApiError(error) });
      }
      this.running = false;
      this.pump();
    });
  }

  /** Runs `job`, with the waiting jobs of its batch key when coalescing; a Stepwise result comes back to be continued. */
  private runJob(job: Job): Stepwise | undefined {
    const together = this.coalesce && job.batch ? this.takeBatch(job) : [job];
    if (together.length === 1) return this.runAlone(job);
    this.runTogether(together);
    return undefined;
  }

  /** `first` and every waiting job of its batch key (they are unordered: sampling). */
  private takeBatch(first: Job): Job[] {
    const key = first.batch!.key;
    const together = [first, ...this.ready.filter((j) => j.batch?.key === key)];
    if (together.length > 1) this.ready.splice(0, this.ready.length, ...this.ready.filter((j) => j.batch?.key !== key));
    return together;
  }

  /** Runs a job; a Stepwise result is returned to be continued instead of settled. */
  private runAlone(job: Job): Stepwise | undefined {
    this.largestBatch = Math.max(this.largestBatch, 1);
    try {
      const value = job.run();
      if (value instanceof Stepwise) return value;
      this.settle(job.id, { state: 'done', value });
    } catch (error) {
      this.settle(job.id, { state: 'failed', error: asApiError(error) });
    }
    return undefined;
  }

  private runTogether(jobs: Job[]): void {
    this.largestBatch = Math.max(this.largestBatch, jobs.length);
    let results: unknown[];
    try {
      results = jobs[0]!.batch!.runMany(jobs.map((j) => j.batch!.item));
    } catch {
      // Whose fault was it? Each job alone says.
      for (const job of jobs) this.runAlone(job);
      return;
    }
    jobs.forEach((job, i) => {
      const result = results[i];
      this.settle(job.id, result instanceof Error ? { state: 'failed', error: asApiError(result) } : { state: 'done', value: result });
    });
  }

  private settle(id: string, answer: FutureAnswer): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.answer = answer;
    if (answer.state === 'failed' && answer.error.status >= 500) this.onServerError?.(answer.error);
    for (const wake of entry.waiters.splice(0)) wake();
    // Kept a while for the poll (and its retries), then dropped even if nobody asked.
    setTimeout(() => this.entries.delete(id), this.keepMs).unref();
  }
}

/** Troupe's input/config errors are the request's fault (user); anything else is the server's. */
export function asApiError(error: unknown): TinkerApiError {
  if (error instanceof TinkerApiError) return error;
  if (error instanceof TroupeError && (error.category === 'input' || error.category === 'config')) return new TinkerApiError(400, error.message);
  return new TinkerApiError(500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
}
