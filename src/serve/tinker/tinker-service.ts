/**
 * The state and operations of Troupe's Tinker server, without HTTP (tinker-server.ts maps
 * routes onto these methods). Sessions, training models (LoRA adapters on shared bases),
 * sampling sessions (frozen snapshots of an adapter, or the bare base) and saved weights.
 *
 * Every request is checked here, at submit time, before anything is queued (the check-*.ts
 * modules, against the server's TinkerLimits): a bad one is a typed 4xx naming the field. A
 * refused training op still uses up its seq_id, so the model's later ops do not wait for it.
 * Submit operations return a request id from the FutureQueue; their work runs later, in
 * seq_id order per training model, and the client collects it with retrieve_future. What
 * clients saved (weights, sampler snapshots) lives in the CheckpointStore (checkpoint-store.ts).
 */
import type { Kernels } from '../../engine/kernels/types.js';
import { deriveSeed } from '../../util/rng.js';
import { parseTinkerPath } from '../../tinker/tinker-path.js';
import type { ForwardBackwardRequest } from '../../tinker/types.js';
import { AdapterBudget, adapterMemory } from './adapter-budget.js';
import { BaseModels, type BaseModelSource } from './base-models.js';
import { checkDatums, checkLossFn } from './check-datums.js';
import { CheckpointStore, loraFlags } from './checkpoint-store.js';
import { checkSampleRequest } from './check-sample-request.js';
import { adapterBytes, checkAdamParams, checkLoraConfig, checkpointName, ttlSeconds } from './check-training-requests.js';
import { FutureQueue, Stepwise } from './future-queue.js';
import { resolveTinkerLimits, type TinkerLimits } from './limits.js';
import { parseTinker, type Body } from './request-fields.js';
import { asampleIdsBody, createModelBody, loadWeightsBody, modelBody, overwriteBody, samplingSessionBody, sessionBody, trainingOpBody } from './route-bodies.js';
import { sample, sampleMany, type SampleJob } from './sample.js';
import type { SamplerThread } from './sampler-thread.js';
import { badField, TinkerApiError } from './tinker-api-error.js';
import { EPHEMERAL_SAMPLERS_KEPT } from './sampler-snapshots.js';
import { LORA_ALPHA, TrainingModel } from './training-model.js';
import type { RunRecord } from './training-runs.js';
import { TroupeError } from '../../util/errors.js';


export interface TinkerServiceOptions {
  readonly kernels: Kernels;
  readonly models: readonly BaseModelSource[];
  /** Seeds LoRA initialisation (when create_model sends no lora_config.seed) and requests without a seed. Default 0. */
  readonly seed?: number;
  /** LoRA alpha of every adapter (the API has no field for it). Default LORA_ALPHA (16). */
  readonly loraAlpha?: number;
  /** See FutureQueue. */
  readonly gapTimeoutMs?: number;
  /** Keeps save_weights checkpoints on disk (only there) too, for a restarted server (saved-weights.ts). */
  readonly stateDir?: string;
  /** Per-request and memory bounds; each unset one takes its default (limits.ts). */
  readonly limits?: Partial<TinkerLimits>;
  /** The clock (for checkpoint times and ttl_seconds); default Date.now. */
  readonly now?: () => number;
  /**
   * Run the asample requests that wait together as one batch (sample.ts sampleMany): much
   * faster under concurrent clients; logprobs may then differ in the last bits from run to run.
   * Default false: each request alone, results independent of timing.
   */
  readonly batchSampling?: boolean;
  /** With batchSampling: how long a sampling request waits for others to batch with. Default 2 ms. */
  readonly batchWindowMs?: number;
  /** Where a queued job's server-side failure (5xx) is reported besides the client's future. Default: none. */
  readonly log?: (line: string) => void;
  /** Run asample requests on this thread (sampler-thread.ts) instead of between training jobs. */
  readonly samplerThread?: SamplerThread;
}

interface Session {
  lastHeartbeat: number;
  readonly models: string[];
  readonly samplers: string[];
}

export class TinkerService {
  readonly queue: FutureQueue;
  readonly bases: BaseModels;
  readonly limits: TinkerLimits;
  private readonly seed: number;
  readonly loraAlpha: number;
  /** The clock checkpoint times and expiries use. */
  readonly now: () => number;
  readonly sessions = new Map<string, Session>();
  private readonly models = new Map<string, TrainingModel>();
  /** Every training run this server made (kept after unload_model, for GET training_runs). */
  readonly runs = new Map<string, { -readonly [K in keyof RunRecord]: RunRecord[K] }>();
  readonly store: CheckpointStore;
  private readonly budget: AdapterBudget;
  /** Distinguishes this server's session (and so model) ids from a previous server's on the same state folder. */
  private readonly sessionPrefix: string;
  private counter = 0;
  /** Where asample runs when the server samples on a thread of its own (--sampler-thread). */
  readonly samplerThread: SamplerThread | undefined;

  constructor(options: TinkerServiceOptions) {
    this.bases = new BaseModels(options.kernels, options.models);
    const log = options.log;
    this.queue = new FutureQueue({
      gapTimeoutMs: options.gapTimeoutMs,
      coalesce: options.batchSampling ?? false,
      coalesceWindowMs: options.batchWindowMs,
      ...(log ? { onServerError: (error: TinkerApiError) => log(`troupe serve --tinker: a queued request failed (${error.status}): ${error.message}`) } : {}),
    });
    this.seed = options.seed ?? 0;
    this.limits = resolveTinkerLimits(options.limits);
    this.now = options.now ?? Date.now;
    this.loraAlpha = options.loraAlpha ?? LORA_ALPHA;
    if (!(this.loraAlpha > 0) || !Number.isFinite(this.loraAlpha)) throw new TroupeError('input', `--lora-alpha must be a positive number, got ${this.loraAlpha}`);
    this.budget = new AdapterBudget(this.limits.maxAdapterBytes, () => this.adapterMemory());
    this.store = new CheckpointStore(options.stateDir, this.bases, this.budget, this.now);
    this.sessionPrefix = options.stateDir === undefined ? 'session' : `session-${this.now().toString(36)}`;
    const thread = (this.samplerThread = options.samplerThread);
    if (thread) this.store.samplers.listener = { installed: (base, name) => thread.installAdapter(base, name), dropped: (base, name) => thread.dropAdapter(base, name) };
  }

  createSession(): { type: 'create_session'; session_id: string } {
    const id = `${this.sessionPrefix}-${++this.counter}`;
    this.sessions.set(id, { lastHeartbeat: this.now(), models: [], samplers: [] });
    return { type: 'create_session', session_id: id };
  }

  heartbeat(body: Body): { type: 'session_heartbeat' } {
    this.session(parseTinker(sessionBody, body).session_id).lastHeartbeat = this.now();
    return { type: 'session_heartbeat' };
  }

  getSession(id: string): { training_run_ids: string[]; sampler_ids: string[] } {
    const s = this.session(id);
    return { training_run_ids: s.models, sampler_ids: s.samplers };
  }

  capabilities(): { supported_models: ReturnType<BaseModels['list']> } {
    return { supported_models: this.bases.list() };
  }

  createModel(body: Body): string {
    const { session_id: sessionId, base_model: baseModel, model_seq_id: modelSeq } = parseTinker(createModelBody, body);
    const session = this.session(sessionId);
    const base = this.bases.get(baseModel);
    const lora = checkLoraConfig(body, this.limits);
    const seq = modelSeq ?? session.models.length;
    const id = `${sessionId}:train:${seq}`;
    if (this.models.has(id)) throw badField('model_seq_id', `model ${id} already exists; use a new model_seq_id`);
    const release = this.budget.reserve(adapterBytes(base.model.config, lora, true), `create_model: a rank-${lora.rank} adapter of ${base.name}`);
    return this.queue.submit({}, () => {
      release();
      const model = TrainingModel.create(base, id, lora, { seed: deriveSeed(this.seed, 'lora', id), alpha: this.loraAlpha });
      this.models.set(id, model);
      this.runs.set(id, { id, baseModel: base.name, loraRank: lora.rank, lastRequestTime: new Date(this.now()) });
      session.models.push(id);
      return { type: 'create_model', model_id: id };
    });
  }

  getInfo(body: Body): Record<string, unknown> {
    const m = this.model(parseTinker(modelBody, body).model_id);
    const arch = m.base.model.config.architectures?.[0] ?? 'LlamaForCausalLM';
    return { type: 'get_info', model_id: m.id, model_data: { arch, model_name: m.base.name, tokenizer_id: m.base.name }, is_lora: true, lora_rank: m.lora.rank, lora_alpha: m.alpha, model_name: m.base.name, ...loraFlags(m.lora) };
  }

  unloadModel(body: Body): string {
    const m = this.model(parseTinker(modelBody, body).model_id);
    return this.queue.submit({}, () => {
      this.store.samplers.dropEphemeral(m.id);
      m.dispose();
      this.models.delete(m.id);
      this.queue.dropModel(m.id);
      return { type: 'unload_model', model_id: m.id };
    });
  }

  forwardBackward(request: ForwardBackwardRequest): string {
    const m = this.model(request.model_id);
    const config = m.base.model.config;
    const checked = this.checkInLine(m.id, request.seq_id, () => {
      const lossFn = checkLossFn(request);
      return { lossFn, datums: checkDatums(request, lossFn, { vocab: config.vocab_size, context: config.max_position_embeddings }, this.limits) };
    });
    // Micro-batch by micro-batch, so health checks and polls are answered during a large one.
    return this.queue.submit({ model: m.id, seqId: request.seq_id }, () => new Stepwise(m.forwardBackwardSteps({ ...checked, config: request.loss_fn_config, forwardOnly: request.forward_only }), (value) => ({ proto: 'forward_backward', value })));
  }

  optimStep(body: Body): string {
    const { model_id: modelId, seq_id: seq } = parseTinker(trainingOpBody, body);
    const m = this.model(modelId);
    const adam = this.checkInLine(m.id, seq, () => checkAdamParams(body));
    return this.queue.submit({ model: m.id, seqId: seq }, () => m.optimStep(adam));
  }

  saveWeights(body: Body): string {
    const { model_id: modelId, seq_id: seq } = parseTinker(trainingOpBody, body);
    const m = this.model(modelId);
    const { name, ttl, overwrite } = this.checkInLine(m.id, seq, () => ({ name: checkpointName(body, 'path'), ttl: ttlSeconds(body), overwrite: parseTinker(overwriteBody, body).overwrite }));
    return this.queue.submit({ model: m.id, seqId: seq }, () => ({ type: 'save_weights', path: this.store.saveWeights(m, name ?? `step-${++this.counter}`, { ttl, overwrite }) }));
  }

  /** A frozen copy of the adapter to sample from: named (a tinker path) or a sampling session. */
  saveWeightsForSampler(body: Body): string {
    const { model_id: modelId, seq_id: seq } = parseTinker(trainingOpBody, body);
    const m = this.model(modelId);
    const { name, ttl } = this.checkInLine(m.id, seq, () => ({ name: checkpointName(body, 'path'), ttl: ttlSeconds(body) }));
    return this.queue.submit({ model: m.id, seqId: seq }, () => {
      const path = this.store.saveForSampler(m, name ?? `sampler-${++this.counter}`, { named: name !== undefined, ttl });
      this.touch(m.id);
      if (name !== undefined) return { type: 'save_weights_for_sampler', path };
      return { type: 'save_weights_for_sampler', path, sampling_session_id: path };
    });
  }

  loadWeights(body: Body): string {
    const { model_id: modelId, seq_id: seq } = parseTinker(trainingOpBody, body);
    const m = this.model(modelId);
    const { path, optimizer } = this.checkInLine(m.id, seq, () => {
      const { path, optimizer } = parseTinker(loadWeightsBody, body);
      parseTinkerPath(path);
      return { path, optimizer };
    });
    return this.queue.submit({ model: m.id, seqId: seq }, () => {
      m.restore(this.store.snapshotAt(path), optimizer);
      this.touch(m.id);
      return { type: 'load_weights', path, model_id: m.id };
    });
  }

  createSamplingSession(body: Body): { type: 'create_sampling_session'; sampling_session_id: string } {
    const { session_id: sessionId, sampling_session_seq_id: samplerSeq } = parseTinker(samplingSessionBody, body);
    const session = this.session(sessionId);
    const seq = samplerSeq ?? session.samplers.length;
    const id = `${sessionId}:sample:${seq}`;
    this.store.samplers.set(id, this.store.samplerTarget(body));
    session.samplers.push(id);
    return { type: 'create_sampling_session', sampling_session_id: id };
  }

  asample(body: Body): string {
    const sessionId = parseTinker(asampleIdsBody, body).sampling_session_id;
    const target = sessionId !== undefined ? this.store.samplers.get(sessionId) : this.store.samplerTarget(body);
    if (!target) throw new TinkerApiError(404, `unknown sampling_session_id ${JSON.stringify(sessionId)} (sampler snapshots older than the last ${EPHEMERAL_SAMPLERS_KEPT} of a model are freed); create a new sampling client`);
    const config = target.base.model.config;
    const checked = checkSampleRequest(body, { vocab: config.vocab_size, context: config.max_position_embeddings, stopIds: target.base.stopIds }, this.limits);
    const seed = deriveSeed(this.seed, 'sample', ++this.counter);
    const base = target.base;
    const job: SampleJob = { adapter: target.adapter, request: checked, seed };
    if (this.samplerThread) return this.queue.track(this.samplerThread.sample(base, job).then((value) => ({ proto: 'sample', value })));
    const runMany = (jobs: SampleJob[]) => sampleMany(base, jobs).map((r) => (r instanceof Error ? r : { proto: 'sample', value: r }));
    return this.queue.submit({}, () => ({ proto: 'sample', value: sample(base, job.adapter, checked, seed) }), { key: `sample:${base.name}`, item: job, runMany });
  }

  /** Bytes every LoRA adapter (training ones with gradients and Adam moments) and in-memory checkpoint holds. */
  adapterMemory(): number {
    return adapterMemory(this.bases.loadedBases(), (name) => this.models.has(name)) + this.store.saved.memoryBytes();
  }

  dispose(): void {
    void this.samplerThread?.close();
    this.bases.dispose();
  }

  /** Runs `check`; when it refuses, the op's seq_id is still used up, so later ops of the model do not wait for it. */
  private checkInLine<T>(model: string, seq: number | undefined, check: () => T): T {
    try {
      return check();
    } catch (error) {
      if (seq !== undefined) this.queue.submit({ model, seqId: seq }, () => ({ refused: true }));
      throw error;
    }
  }

  private touch(id: string): void {
    const run = this.runs.get(id);
    if (run) run.lastRequestTime = new Date(this.now());
  }

  private session(id: string): Session {
    const s = this.sessions.get(id);
    if (!s) throw new TinkerApiError(404, `unknown session_id ${JSON.stringify(id)}; call create_session first`);
    return s;
  }

  private model(id: string): TrainingModel {
    const m = this.models.get(id);
    if (!m) throw new TinkerApiError(404, `unknown model_id ${JSON.stringify(id).slice(0, 100)}; known: ${[...this.models.keys()].slice(0, 20).join(', ') || '(none; call create_model first)'}`);
    this.touch(id);
    return m;
  }
}
