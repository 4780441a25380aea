/**
 * The embedded engine's sampler beside its learner: a worker thread with its own copy of the
 * run's models that plays step k + s's rollout while this thread runs update k
 * (train.max_steps_off_policy: s >= 1).
 *
 *   const worker = await RolloutWorker.start({ config, policies, threads: 1 });
 *   worker.syncWeights();                  // the weights after update k - 1 (version k)
 *   const ahead = worker.rollout(k + s);   // runs there...
 *   await update(k);                       // ...while this runs here
 *   const rolled = await ahead;
 *
 * The copy starts as the whole model; afterwards only what trains travels before each
 * rollout (the adapters under LoRA, every float32 weight otherwise). The thread rebuilds the
 * team and task source from the config, so it serves built-in tasks and `tasks.module` ones (a
 * task passed as code cannot cross threads; such runs sample inline). Its rollouts equal the inline ones bit for
 * bit: the kernels do not depend on the thread count, and the requests are the same.
 */
import type { Worker } from 'node:worker_threads';
import type { LlamaModel } from '../../engine/model/llama-model.js';
import { packModel, packTokenizer, packTrainableWeights, type TokenizerTransfer } from '../../engine/worker/model-transfer.js';
import { kernelsSpec, startWorker } from '../../engine/worker/start-worker.js';
import type { Tokenizer } from '../../engine/tokenizer/types.js';
import type { ResolvedConfig } from '../../config/resolve-config.js';
import { taskOriginOf } from '../../config/task-of-config.js';
import { packPromptFormat } from '../../policy/prompt-format-transfer.js';
import { TroupeError } from '../../util/errors.js';
import type { EmbeddedMember, PolicySet } from '../policy-set.js';
import type { StepRollout } from '../train-step.js';
import type { RolloutWorkerInit, WorkerReply, WorkerRequest } from './rollout-worker-messages.js';

interface Pending {
  readonly resolve: (rollout: StepRollout) => void;
  readonly reject: (error: Error) => void;
  readonly progress?: (completions: number) => void;
}

export class RolloutWorker {
  private readonly worker: Worker;
  private readonly models: readonly LlamaModel[];
  /** The sampling thread's kernel threads, lent from this thread's during each rollout. */
  private readonly threads: number;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | undefined;
  private closing = false;

  private constructor(worker: Worker, models: readonly LlamaModel[], threads: number) {
    this.worker = worker;
    this.models = models;
    this.threads = threads;
    worker.on('message', (reply: WorkerReply) => this.receive(reply));
    worker.on('error', (error) => this.fail(new TroupeError('engine', `the sampling thread failed: ${error.message}; set train.async_sampler: inline to sample on the learner's thread`, { cause: error })));
    worker.on('exit', (code) => this.closing || this.fail(new TroupeError('engine', `the sampling thread stopped (exit code ${code}); set train.async_sampler: inline to sample on the learner's thread`)));
  }

  /** Starts the thread with a copy of every embedded member's model; resolves once it can sample. */
  static async start(init: { config: ResolvedConfig; policies: PolicySet; threads: number; progressEveryMs?: number }): Promise<RolloutWorker> {
    const members = [...init.policies.members.values()].filter((m): m is EmbeddedMember => m.backend === 'embedded');
    if (members.length !== init.policies.members.size || members.length === 0) {
      throw new TroupeError('invariant', 'internal invariant broken: a rollout worker samples embedded policies only');
    }
    const models: LlamaModel[] = [];
    const tokenizers: Tokenizer[] = [];
    const indexOf = <T>(list: T[], item: T) => (list.includes(item) ? list.indexOf(item) : list.push(item) - 1);
    const policies = members.map((m) => ({
      id: m.id,
      model: indexOf(models, m.model),
      tokenizer: indexOf(tokenizers, m.policy.tokenizer),
      ...(m.adapter === undefined ? {} : { adapter: m.adapter }),
      maxBatch: m.policy.maxBatch,
      prompting: packPromptFormat(m.policy.prompting),
      logitMask: m.policy.logitMask.slice(),
    }));
    const kernels = models[0]!.kernels;
    const transfer: ArrayBuffer[] = [];
    const packedModels = models.map((model) => {
      const packed = packModel(model);
      transfer.push(...packed.transfer);
      return packed.message;
    });
    const workerData: RolloutWorkerInit = {
      config: init.config,
      kernels: kernelsSpec(kernels, init.threads),
      models: packedModels,
      tokenizers: tokenizers.map((t): TokenizerTransfer => packTokenizer(t)),
      policies,
      roleToPolicy: [...init.policies.roleToPolicy],
      progressEveryMs: init.progressEveryMs ?? 1000,
    };
    const worker = await startWorker(new URL('./rollout-worker-thread.js', import.meta.url), { workerData, transferList: transfer }).catch((error: Error) => {
      throw new TroupeError('engine', `the sampling thread could not start: ${error.message}`, { cause: error });
    });
    return new RolloutWorker(worker, models, init.threads);
  }

  /** Sends what the learners changed; the next rollout samples with exactly these weights. */
  syncWeights(): void {
    const transfer: ArrayBuffer[] = [];
    const models = this.models.map((model, index) => {
      const packed = packTrainableWeights(model);
      transfer.push(...packed.transfer);
      return { model: index, weights: packed.message };
    });
    this.post({ type: 'weights', models }, transfer);
  }

  /**
   * Step `step`'s rollout, played on the thread with the weights last sent. Until it is back,
   * this thread's kernels keep only their share of the threads (native kernels; WebAssembly
   * ones keep all of theirs). `progress` hears its completions so far (at most once every
   * `progressEveryMs`, default a second) whenever this thread is free to listen.
   */
  rollout(step: number, progress?: (completions: number) => void): Promise<StepRollout> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const result = new Promise<StepRollout>((resolve, reject) => this.pending.set(id, { resolve, reject, ...(progress ? { progress } : {}) }));
    const kernels = this.models[0]!.kernels;
    const all = kernels.threads;
    kernels.setThreads?.(Math.max(1, all - this.threads));
    this.post({ type: 'rollout', id, step });
    return result.finally(() => kernels.setThreads?.(all));
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.worker.terminate();
  }

  private post(request: WorkerRequest, transfer: ArrayBuffer[] = []): void {
    if (!this.failure) this.worker.postMessage(request, transfer);
  }

  private receive(reply: WorkerReply): void {
    if (reply.type === 'ready') return;
    if (reply.type === 'error' && reply.id === -1) {
      this.fail(new TroupeError(reply.category ?? 'engine', `the sampling thread failed: ${reply.message}`));
      return;
    }
    const waiting = this.pending.get(reply.id);
    if (reply.type === 'progress') {
      waiting?.progress?.(reply.completions);
      return;
    }
    this.pending.delete(reply.id);
    if (reply.type === 'rollout') waiting?.resolve(reply.rollout);
    else waiting?.reject(new TroupeError(reply.category ?? 'engine', reply.message));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }
}

/**
 * The sampling thread an embedded asynchronous run gets, or undefined (with a line saying
 * why) when it samples inline: on-policy runs, Tinker runs (they overlap on the service),
 * `train.async_sampler: inline`, one thread, or a task defined in code.
 */
export async function startRolloutWorker(config: ResolvedConfig, policies: PolicySet, log: (message: string) => void): Promise<RolloutWorker | undefined> {
  if (config.train.max_steps_off_policy === 0 || config.train.async_sampler === 'inline') return undefined;
  const members = [...policies.members.values()];
  if (!members.every((m) => m.backend === 'embedded')) return undefined;
  const threads = kernelsOf(policies).threads;
  const origin = taskOriginOf(config);
  const inline = (why: string) => {
    log(`async sampling runs on the learner's thread (rollout k + s, then update k: no overlap): ${why}`);
    return undefined;
  };
  if (origin !== 'built-in' && origin !== config.tasks.module) return inline(`task '${config.tasks.name}' comes from ${origin ?? 'code'}, which a worker thread cannot import; give it as tasks.module to sample on a thread of its own`);
  if (threads < 2) return inline('one thread (TROUPE_THREADS=1); with 2 or more a sampling thread runs beside the learner');
  const samplerThreads = Math.floor(threads / 2);
  let worker: RolloutWorker;
  try {
    worker = await RolloutWorker.start({ config, policies, threads: samplerThreads });
  } catch (error) {
    // Inline sampling gives the same numbers, only slower: a thread that cannot start is no reason to stop.
    return inline(`the sampling thread did not start (${(error as Error).message})`);
  }
  const plural = (n: number) => `${n} kernel thread${n === 1 ? '' : 's'}`;
  const learner = kernelsOf(policies).setThreads ? threads - samplerThreads : threads;
  log(`async sampling: a worker thread (${plural(samplerThreads)}, its own copy of the weights) plays step k + ${config.train.max_steps_off_policy} while the learner (${plural(learner)}) updates step k`);
  return worker;
}

function kernelsOf(policies: PolicySet) {
  return ([...policies.members.values()][0] as EmbeddedMember).model.kernels;
}
