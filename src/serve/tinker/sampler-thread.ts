/**
 * `troupe serve --tinker --sampler-thread`: asample requests run on a worker thread with its own
 * copy of each served base and of the sampler snapshots, so sampling goes on while this thread
 * runs a forward_backward or optim_step (on a single thread they take turns between an
 * update's micro-batches). Snapshots are frozen weights, so the copy is exact: a request gets
 * the response it would get here. The thread takes half of the kernel threads; on the native
 * backend this thread keeps the other half.
 *
 *   const thread = await SamplerThread.start(kernels, { batch: true });
 *   thread.installAdapter(base, name);                 // after a save_weights_for_sampler
 *   const response = await thread.sample(base, job);   // the SampleResponse, or a TinkerApiError
 */
import type { Worker } from 'node:worker_threads';
import type { Kernels } from '../../engine/kernels/types.js';
import { packAdapter, packModel, packTokenizer } from '../../engine/worker/model-transfer.js';
import { kernelsSpec, startWorker } from '../../engine/worker/start-worker.js';
import type { SampleResponse } from '../../tinker/types.js';
import type { LoadedBase } from './base-models.js';
import type { SampleJob } from './sample.js';
import type { SamplerReply, SamplerRequest, SamplerThreadInit } from './sampler-thread-messages.js';
import { TinkerApiError } from './tinker-api-error.js';

interface Pending {
  readonly resolve: (value: SampleResponse) => void;
  readonly reject: (error: TinkerApiError) => void;
}

export class SamplerThread {
  /** The kernel threads the worker uses (lent from this thread's on native kernels). */
  readonly threads: number;
  /** Sample requests answered so far. */
  served = 0;
  private readonly worker: Worker;
  private readonly bases = new Set<string>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: TinkerApiError | undefined;
  private closing = false;

  private readonly restoreThreads: () => void;

  private constructor(worker: Worker, threads: number, restoreThreads: () => void) {
    this.worker = worker;
    this.threads = threads;
    this.restoreThreads = restoreThreads;
    worker.unref();
    worker.on('message', (reply: SamplerReply) => this.receive(reply));
    worker.on('error', (error) => this.fail(`the sampling thread failed: ${error.message}`));
    worker.on('exit', (code) => this.closing || this.fail(`the sampling thread stopped (exit code ${code})`));
  }

  /** Starts the worker with half of `kernels`' threads (at least one). */
  static async start(kernels: Kernels, options: { batch: boolean }): Promise<SamplerThread> {
    const threads = Math.max(1, Math.floor(kernels.threads / 2));
    const workerData: SamplerThreadInit = {
      kernels: kernelsSpec(kernels, threads),
      batch: options.batch,
    };
    const worker = await startWorker(new URL('./sampler-thread-worker.js', import.meta.url), { workerData }).catch((error: Error) => {
      throw new TinkerApiError(500, `the sampling thread could not start: ${error.message}; serve without --sampler-thread`);
    });
    const restore = kernels.threads;
    if (restore > 1) kernels.setThreads?.(Math.max(1, restore - threads));
    return new SamplerThread(worker, threads, () => kernels.setThreads?.(restore));
  }

  /** The sampling snapshot `name` of `base` (installed there already) is copied to the thread. */
  installAdapter(base: LoadedBase, name: string): void {
    this.ensureBase(base);
    const transfer: ArrayBuffer[] = [];
    const adapter = packAdapter(base.model.adapters.get(name)!, transfer);
    this.post({ type: 'adapter', base: base.name, adapter }, transfer);
  }

  dropAdapter(base: LoadedBase, name: string): void {
    if (this.bases.has(base.name)) this.post({ type: 'drop', base: base.name, adapter: name });
  }

  sample(base: LoadedBase, job: SampleJob): Promise<SampleResponse> {
    if (this.failure) return Promise.reject(this.failure);
    this.ensureBase(base);
    const id = this.nextId++;
    const answer = new Promise<SampleResponse>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.post({ type: 'sample', id, base: base.name, job });
    return answer;
  }

  /** Stops the thread; this thread's kernels get all their threads back. */
  async close(): Promise<void> {
    this.closing = true;
    this.restoreThreads();
    await this.worker.terminate();
  }

  /** The first time a base is sampled, its weights (without adapters), tokenizer and stop ids go over. */
  private ensureBase(base: LoadedBase): void {
    if (this.bases.has(base.name)) return;
    this.bases.add(base.name);
    const packed = packModel(base.model, { adapters: false });
    const logitMask = base.sampler.logitMask.slice();
    this.post({ type: 'base', name: base.name, model: packed.message, tokenizer: packTokenizer(base.tokenizer), logitMask, stopIds: base.stopIds }, packed.transfer);
  }

  private post(request: SamplerRequest, transfer: ArrayBuffer[] = []): void {
    if (this.failure) return;
    // Waiting answers keep the process alive; an idle thread does not.
    if (request.type === 'sample') this.worker.ref();
    this.worker.postMessage(request, transfer);
  }

  private receive(reply: SamplerReply): void {
    if (reply.type === 'ready') return;
    if (reply.type === 'error' && reply.id === -1) return this.fail(reply.message);
    const waiting = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.type === 'sample') {
      this.served++;
      waiting?.resolve(reply.value);
    }
    else waiting?.reject(new TinkerApiError(reply.status, reply.message));
  }

  private fail(message: string): void {
    this.failure ??= new TinkerApiError(500, `${message}; restart the server without --sampler-thread`);
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }
}
