/**
 * The state and operations of Troupe's Tinker server, without HTTP (tinker-server.ts maps
 * routes onto these methods). Sessions, training models (LoRA adapters on shared bases),
 * sampling sessions (frozen snapshots of an adapter, or the bare base) and saved weights.
 *
 * Submit operations return a request id from the FutureQueue; their work runs later, in
 * seq_id order per training model, and the client collects it with retrieve_future.
 */
import type { Kernels } from '../../engine/kernels/types.js';
import { deriveSeed } from '../../util/rng.js';
import { formatTinkerPath, parseTinkerPath } from '../../tinker/tinker-path.js';
import { SavedWeights } from './saved-weights.js';
import { DEFAULT_ADAM, type AdamParams, type ForwardBackwardRequest, type LoraConfigWire, type SampleRequest } from '../../tinker/types.js';
import { BaseModels, type BaseModelSource, type LoadedBase } from './base-models.js';
import { FutureQueue } from './future-queue.js';
import { sample } from './sample.js';
import { badField, TinkerApiError } from './tinker-api-error.js';
import { LORA_ALPHA, TrainingModel, type AdapterSnapshot } from './training-model.js';
import { TroupeError } from '../../util/errors.js';

/** What a sampling session samples from: a base, and an adapter of it (a frozen snapshot) or none. */
interface SamplerTarget {
  readonly base: LoadedBase;
  readonly adapter?: string;
  readonly modelPath?: string;
}

/** Unnamed sampler snapshots kept per training model (older ones are freed: RL makes one per step). */
const EPHEMERAL_SAMPLERS_KEPT = 4;

export interface TinkerServiceOptions {
  readonly kernels: Kernels;
  readonly models: readonly BaseModelSource[];
  /** Seeds LoRA initialisation (when create_model sends no lora_config.seed) and requests without a seed. Default 0. */
  readonly seed?: number;
  /** LoRA alpha of every adapter (the API has no field for it). Default LORA_ALPHA (32). */
  readonly loraAlpha?: number;
  /** See FutureQueue. */
  readonly gapTimeoutMs?: number;
  /** Keeps save_weights checkpoints on disk here too, for a restarted server (saved-weights.ts). */
  readonly stateDir?: string;
}

function str(body: Record<string, unknown>, key: string): string {
  const v = body[key];
  if (typeof v !== 'string' || v.length === 0) throw badField(key, `must be a non-empty string, got ${JSON.stringify(v)}`);
  return v;
}

export class TinkerService {
  readonly queue: FutureQueue;
  readonly bases: BaseModels;
  private readonly seed: number;
  readonly loraAlpha: number;
  private readonly sessions = new Map<string, { lastHeartbeat: number; models: string[]; samplers: string[] }>();
  private readonly models = new Map<string, TrainingModel>();
  private readonly samplers = new Map<string, SamplerTarget>();
  private readonly ephemeral = new Map<string, string[]>();
  private readonly saved: SavedWeights;
  /** Distinguishes this server's session (and so model) ids from a previous server's on the same state folder. */
  private readonly sessionPrefix: string;
  private counter = 0;

  constructor(options: TinkerServiceOptions) {
    this.bases = new BaseModels(options.kernels, options.models);
    this.queue = new FutureQueue({ gapTimeoutMs: options.gapTimeoutMs });
    this.seed = options.seed ?? 0;
    this.loraAlpha = options.loraAlpha ?? LORA_ALPHA;
    if (!(this.loraAlpha > 0) || !Number.isFinite(this.loraAlpha)) throw new TroupeError('input', `--lora-alpha must be a positive number, got ${this.loraAlpha}`);
    this.saved = new SavedWeights(options.stateDir);
    this.sessionPrefix = options.stateDir === undefined ? 'session' : `session-${Date.now().toString(36)}`;
  }

  createSession(): { type: 'create_session'; session_id: string } {
    const id = `${this.sessionPrefix}-${++this.counter}`;
    this.sessions.set(id, { lastHeartbeat: Date.now(), models: [], samplers: [] });
    return { type: 'create_session', session_id: id };
  }

  heartbeat(body: Record<string, unknown>): { type: 'session_heartbeat' } {
    this.session(str(body, 'session_id')).lastHeartbeat = Date.now();
    return { type: 'session_heartbeat' };
  }

  getSession(id: string): { training_run_ids: string[]; sampler_ids: string[] } {
    const s = this.session(id);
    return { training_run_ids: s.models, sampler_ids: s.samplers };
  }

  capabilities(): { supported_models: ReturnType<BaseModels['list']> } {
    return { supported_models: this.bases.list() };
  }

  createModel(body: Record<string, unknown>): string {
    const sessionId = str(body, 'session_id');
    const session = this.session(sessionId);
    const baseName = str(body, 'base_model');
    const lora = (body.lora_config ?? { rank: 32 }) as LoraConfigWire;
    const id = `${sessionId}:train:${Number(body.model_seq_id ?? session.models.length)}`;
    if (this.models.has(id)) throw badField('model_seq_id', `model ${id} already exists; use a new model_seq_id`);
    // Resolve the base now: an unknown model is a 404 at once, not a failed future later.
    if (!this.bases.names().includes(baseName)) this.bases.get(baseName);
    return this.queue.submit({}, () => {
      const model = TrainingModel.create(this.bases.get(baseName), id, lora, { seed: deriveSeed(this.seed, 'lora', id), alpha: this.loraAlpha });
      this.models.set(id, model);
      session.models.push(id);
      return { type: 'create_model', model_id: id };
    });
  }

  getInfo(body: Record<string, unknown>): Record<string, unknown> {
    const m = this.model(str(body, 'model_id'));
    const arch = m.base.model.config.architectures?.[0] ?? 'LlamaForCausalLM';
    return { type: 'get_info', model_id: m.id, model_data: { arch, model_name: m.base.name, tokenizer_id: m.base.name }, is_lora: true, lora_rank: m.lora.rank, lora_alpha: m.alpha, model_name: m.base.name };
  }

  unloadModel(body: Record<string, unknown>): string {
    const id = str(body, 'model_id');
    const m = this.model(id);
    return this.queue.submit({}, () => {
      for (const name of this.ephemeral.get(id) ?? []) this.dropSampler(name);
      this.ephemeral.delete(id);
      m.dispose();
      this.models.delete(id);
      this.queue.dropModel(id);
      return { type: 'unload_model', model_id: id };
    });
  }

  forwardBackward(request: ForwardBackwardRequest): string {
    const m = this.model(request.model_id);
    return this.queue.submit({ model: m.id, seqId: request.seq_id }, () => ({ proto: 'forward_backward', value: m.forwardBackward(request) }));
  }

  optimStep(body: Record<string, unknown>): string {
    const m = this.model(str(body, 'model_id'));
    const adam: AdamParams = { ...DEFAULT_ADAM, ...(body.adam_params as Partial<AdamParams> | undefined) };
    return this.queue.submit({ model: m.id, seqId: body.seq_id as number | undefined }, () => m.optimStep(adam));
  }

  saveWeights(body: Record<string, unknown>): string {
    const m = this.model(str(body, 'model_id'));
    return this.queue.submit({ model: m.id, seqId: body.seq_id as number | undefined }, () => {
      const path = formatTinkerPath({ modelId: m.id, kind: 'weights', name: typeof body.path === 'string' ? body.path : `step-${++this.counter}` });
      if (this.saved.has(path) && body.overwrite !== true) throw badField('path', `${path} already exists; choose another name or pass overwrite`);
      this.saved.set(path, m.snapshot(true));
      return { type: 'save_weights', path };
    });
  }

  /** A frozen copy of the adapter to sample from: named (a tinker path) or a sampling session. */
  saveWeightsForSampler(body: Record<string, unknown>): string {
    const m = this.model(str(body, 'model_id'));
    return this.queue.submit({ model: m.id, seqId: body.seq_id as number | undefined }, () => {
      const named = typeof body.path === 'string';
      const name = named ? (body.path as string) : `sampler-${++this.counter}`;
      const path = formatTinkerPath({ modelId: m.id, kind: 'sampler_weights', name });
      const adapter = `${m.id}@${name}`;
      if (this.samplers.has(path)) this.dropSampler(path);
      const snapshot = m.snapshot(false);
      this.installAdapter(m.base, adapter, snapshot);
      this.samplers.set(path, { base: m.base, adapter, modelPath: path });
      if (named) return { type: 'save_weights_for_sampler', path };
      const list = this.ephemeral.get(m.id) ?? [];
      list.push(path);
      while (list.length > EPHEMERAL_SAMPLERS_KEPT) this.dropSampler(list.shift()!);
      this.ephemeral.set(m.id, list);
      return { type: 'save_weights_for_sampler', path, sampling_session_id: path };
    });
  }

  loadWeights(body: Record<string, unknown>): string {
    const m = this.model(str(body, 'model_id'));
    const path = str(body, 'path');
    return this.queue.submit({ model: m.id, seqId: body.seq_id as number | undefined }, () => {
      m.restore(this.snapshotAt(path), body.optimizer === true);
      return { type: 'load_weights', path, model_id: m.id };
    });
  }

  /**
   * delete_checkpoint (`DELETE training_runs/<model_id>/checkpoints/<weights|sampler_weights>/<name>`):
   * forgets saved training weights (memory and --state-dir) or a named sampler snapshot. The
   * model need not exist any more (a resumed run deletes what an earlier server's session saved).
   */
  deleteCheckpoint(modelId: string, checkpointId: string): { type: 'delete_checkpoint'; path: string } {
    const path = `tinker://${modelId}/${checkpointId}`;
    const parsed = parseTinkerPath(path);
    const deleted = parsed.kind === 'weights' ? this.saved.delete(path) : this.samplers.has(path) && (this.dropSampler(path), true);
    if (!deleted) throw new TinkerApiError(404, `no checkpoint at ${path}`);
    return { type: 'delete_checkpoint', path };
  }

  weightsInfo(body: Record<string, unknown>): Record<string, unknown> {
    const s = this.snapshotAt(str(body, 'tinker_path'));
    return { base_model: s.baseModel, is_lora: true, lora_rank: s.lora.rank, train_unembed: false, train_mlp: s.lora.train_mlp !== false, train_attn: s.lora.train_attn !== false };
  }

  createSamplingSession(body: Record<string, unknown>): { type: 'create_sampling_session'; sampling_session_id: string } {
    const session = this.session(str(body, 'session_id'));
    const id = `${body.session_id}:sample:${Number(body.sampling_session_seq_id ?? session.samplers.length)}`;
    this.samplers.set(id, this.samplerTarget(body));
    session.samplers.push(id);
    return { type: 'create_sampling_session', sampling_session_id: id };
  }

  getSampler(id: string): { sampler_id: string; base_model: string; model_path: string | null } {
    const t = this.samplers.get(id);
    if (!t) throw new TinkerApiError(404, `unknown sampler ${JSON.stringify(id)}`);
    return { sampler_id: id, base_model: t.base.name, model_path: t.modelPath ?? null };
  }

  asample(body: Record<string, unknown>): string {
    const request = body as unknown as SampleRequest;
    const target = request.sampling_session_id ? this.samplers.get(request.sampling_session_id) : this.samplerTarget(body);
    if (!target) throw new TinkerApiError(404, `unknown sampling_session_id ${JSON.stringify(request.sampling_session_id)} (sampler snapshots older than the last ${EPHEMERAL_SAMPLERS_KEPT} of a model are freed); create a new sampling client`);
    const seed = deriveSeed(this.seed, 'sample', ++this.counter);
    return this.queue.submit({}, () => ({ proto: 'sample', value: sample(target.base, target.adapter, request, seed) }));
  }

  dispose(): void {
    this.bases.dispose();
  }

  private samplerTarget(body: Record<string, unknown>): SamplerTarget {
    if (typeof body.model_path === 'string') {
      const found = this.samplers.get(body.model_path);
      if (found) return found;
      // A training checkpoint path also samples (its adapter installed as a snapshot).
      const snapshot = this.snapshotAt(body.model_path);
      const base = this.bases.get(snapshot.baseModel);
      const adapter = `snapshot@${body.model_path}`;
      if (!base.model.adapters.has(adapter)) this.installAdapter(base, adapter, snapshot);
      const target = { base, adapter, modelPath: body.model_path };
      this.samplers.set(body.model_path, target);
      return target;
    }
    if (typeof body.base_model === 'string') return { base: this.bases.get(body.base_model) };
    throw badField('base_model', 'give base_model (to sample the base), model_path (a tinker:// path) or sampling_session_id');
  }

  private installAdapter(base: LoadedBase, name: string, snapshot: AdapterSnapshot): void {
    const adapter = TrainingModel.adapterFor(base, name, snapshot.lora, { alpha: snapshot.alpha });
    for (const [tensor, t] of adapter.parameters) t.data.set(snapshot.tensors.get(tensor)!);
  }

  private dropSampler(path: string): void {
    const t = this.samplers.get(path);
    if (t?.adapter && t.base.model.adapters.has(t.adapter)) t.base.model.removeAdapter(t.adapter);
    this.samplers.delete(path);
  }

  private snapshotAt(path: string): AdapterSnapshot {
    const parsed = parseTinkerPath(path);
    const s = this.saved.get(path);
    if (!s) {
      const known = this.saved.paths();
      throw new TinkerApiError(404, `no saved weights at ${path} (${parsed.kind === 'sampler_weights' ? 'sampler weights load into sampling clients, not training clients; ' : ''}saved: ${known.length ? known.join(', ') : 'none'})`);
    }
    return s;
  }

  private session(id: string): { lastHeartbeat: number; models: string[]; samplers: string[] } {
    const s = this.sessions.get(id);
    if (!s) throw new TinkerApiError(404, `unknown session_id ${JSON.stringify(id)}; call create_session first`);
    return s;
  }

  private model(id: string): TrainingModel {
    const m = this.models.get(id);
    if (!m) throw new TinkerApiError(404, `unknown model_id ${JSON.stringify(id)}; known: ${[...this.models.keys()].join(', ') || '(none; call create_model first)'}`);
    return m;
  }
}
