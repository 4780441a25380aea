/**
 * What a Tinker server's clients saved, found by tinker:// path: training weights (save_weights;
 * in memory or under --state-dir, saved-weights.ts) and frozen sampler snapshots
 * (save_weights_for_sampler and sampling sessions, sampler-snapshots.ts). Every snapshot kept in
 * memory is charged to the server's AdapterBudget before it is made.
 *
 * The requests are checked in tinker-service.ts (at submit time); these methods get checked
 * values and run when the queued op runs.
 *
 *   const path = store.saveWeights(model, 'step-3', { overwrite: false });
 *   model.restore(store.snapshotAt(path), true);
 */
import { formatTinkerPath, parseTinkerPath } from '../../tinker/tinker-path.js';
import type { LoraConfigWire } from '../../tinker/types.js';
import { adapterBytes } from './check-training-requests.js';
import type { CheckpointPatch } from './checkpoint-flags.js';
import type { AdapterBudget } from './adapter-budget.js';
import type { BaseModels, LoadedBase } from './base-models.js';
import { parseTinker, type Body } from './request-fields.js';
import { samplerTargetBody, weightsInfoBody } from './route-bodies.js';
import { SamplerSnapshots, type SamplerTarget } from './sampler-snapshots.js';
import { SavedWeights, snapshotBytes } from './saved-weights.js';
import { badField, TinkerApiError } from './tinker-api-error.js';
import type { AdapterSnapshot, TrainingModel } from './training-model.js';
import type { CheckpointRecord } from './training-runs.js';

export class CheckpointStore {
  readonly saved: SavedWeights;
  readonly samplers = new SamplerSnapshots();

  constructor(
    stateDir: string | undefined,
    private readonly bases: BaseModels,
    private readonly budget: AdapterBudget,
    private readonly now: () => number,
  ) {
    this.saved = new SavedWeights(stateDir, now);
  }

  /** save_weights: the adapter and its Adam moments under `name`; returns the tinker path. */
  saveWeights(m: TrainingModel, name: string, options: { ttl?: number; overwrite: boolean }): string {
    const path = formatTinkerPath({ modelId: m.id, kind: 'weights', name });
    if (this.saved.has(path) && !options.overwrite) throw badField('path', `${path} already exists; choose another name or pass overwrite`);
    const snapshot = m.snapshot(true);
    if (!this.saved.onDisk) this.budget.check(snapshotBytes(snapshot), `save_weights ${path}`);
    this.saved.set(path, snapshot, options.ttl);
    return path;
  }

  /** save_weights_for_sampler: a frozen copy of the adapter that `path` (returned) samples from. */
  saveForSampler(m: TrainingModel, name: string, options: { named: boolean; ttl?: number }): string {
    const path = formatTinkerPath({ modelId: m.id, kind: 'sampler_weights', name });
    const sizeBytes = adapterBytes(m.base.model.config, m.lora, false);
    this.budget.check(sizeBytes, `save_weights_for_sampler ${path}`);
    const time = new Date(this.now());
    const expiry = options.ttl === undefined ? {} : { expiresAt: new Date(time.getTime() + options.ttl * 1000) };
    this.samplers.freeze(m, path, { named: options.named, time, ...expiry, sizeBytes });
    return path;
  }

  /** The training weights saved at `path`, or a 404 listing what is saved. */
  snapshotAt(path: string): AdapterSnapshot {
    const parsed = parseTinkerPath(path);
    const s = this.saved.get(path);
    if (!s) {
      const known = this.saved.paths();
      const shown = known.length > 20 ? [...known.slice(0, 20), `... ${known.length - 20} more`] : known;
      throw new TinkerApiError(404, `no saved weights at ${path} (${parsed.kind === 'sampler_weights' ? 'sampler weights load into sampling clients, not training clients; ' : ''}saved: ${shown.length ? shown.join(', ') : 'none'})`);
    }
    return s;
  }

  /** What a request's model_path (sampler or training weights) or base_model samples from. */
  samplerTarget(body: Body): SamplerTarget {
    const { model_path: modelPath, base_model: baseModel } = parseTinker(samplerTargetBody, body);
    if (modelPath !== undefined) {
      const found = this.samplers.get(modelPath);
      if (found) return found;
      // A training checkpoint path also samples (its adapter installed as a snapshot).
      const snapshot = this.snapshotAt(modelPath);
      const base = this.bases.get(snapshot.baseModel);
      const adapter = `snapshot@${modelPath}`;
      if (!base.model.adapters.has(adapter)) {
        this.budget.check(adapterBytes(base.model.config, snapshot.lora, false), `sampling ${modelPath}`);
        this.samplers.install(base, adapter, snapshot);
      }
      const target = { base, adapter, lora: snapshot.lora, modelPath };
      this.samplers.set(modelPath, target);
      return target;
    }
    if (baseModel !== undefined) return { base: this.bases.get(baseModel) };
    throw badField('base_model', 'give base_model (to sample the base), model_path (a tinker:// path) or sampling_session_id');
  }

  /**
   * delete_checkpoint (`DELETE training_runs/<model_id>/checkpoints/<weights|sampler_weights>/<name>`):
   * forgets saved training weights (memory and --state-dir) or a named sampler snapshot. The
   * model need not exist any more (a resumed run deletes what an earlier server's session saved).
   */
  deleteCheckpoint(modelId: string, checkpointId: string): { type: 'delete_checkpoint'; path: string } {
    const path = `tinker://${modelId}/${checkpointId}`;
    const parsed = parseTinkerPath(path);
    const deleted = parsed.kind === 'weights' ? this.saved.delete(path) : this.samplers.deleteNamed(path);
    if (!deleted) throw new TinkerApiError(404, `no checkpoint at ${path}`);
    return { type: 'delete_checkpoint', path };
  }

  /**
   * Publishes, unpublishes or (re)sets the expiry of the checkpoint at `path` (training weights:
   * kept in --state-dir; named sampler weights: in memory); the updated record, or a 404.
   */
  updateCheckpoint(path: string, patch: CheckpointPatch): CheckpointRecord {
    this.sweepExpired();
    const updated = parseTinkerPath(path).kind === 'weights' ? this.saved.update(path, patch) : this.samplers.update(path, patch);
    if (updated === undefined) throw new TinkerApiError(404, `no checkpoint at ${path}; GET training_runs/<model_id>/checkpoints lists them`);
    return updated;
  }

  /** The adapter saved at `path` (training weights or named sampler weights) with its base, for an archive; or a 404. */
  checkpointWeights(path: string): { snapshot: AdapterSnapshot; base: LoadedBase; record: CheckpointRecord } {
    const record = this.list().find((c) => c.path === path);
    const snapshot = record === undefined ? undefined : parseTinkerPath(path).kind === 'weights' ? this.saved.get(path) : this.samplers.weightsOf(path);
    if (record === undefined || snapshot === undefined) throw new TinkerApiError(404, `no checkpoint at ${path} (deleted, expired, or never saved); GET training_runs/<model_id>/checkpoints lists them`);
    return { snapshot, base: this.bases.get(snapshot.baseModel), record };
  }

  weightsInfo(body: Body): Record<string, unknown> {
    const path = parseTinker(weightsInfoBody, body).tinker_path;
    const sampler = this.samplers.get(path);
    if (sampler?.lora) return { base_model: sampler.base.name, is_lora: true, lora_rank: sampler.lora.rank, ...loraFlags(sampler.lora) };
    const s = this.snapshotAt(path);
    return { base_model: s.baseModel, is_lora: true, lora_rank: s.lora.rank, ...loraFlags(s.lora) };
  }

  getSampler(id: string): { sampler_id: string; base_model: string; model_path: string | null } {
    const t = this.samplers.get(id);
    if (!t) throw new TinkerApiError(404, `unknown sampler ${JSON.stringify(id)}`);
    return { sampler_id: id, base_model: t.base.name, model_path: t.modelPath ?? null };
  }

  /** Removes checkpoints whose ttl_seconds ran out (the server calls it on every request). */
  sweepExpired(): void {
    this.saved.sweep();
    this.samplers.sweep(this.now());
  }

  /** Every live checkpoint (training and named sampler weights), oldest first. */
  list(): CheckpointRecord[] {
    this.sweepExpired();
    return [...this.saved.list(), ...this.samplers.checkpoints()].sort((a, b) => a.time.getTime() - b.time.getTime());
  }
}

/** The LoRA target flags get_info and weights_info report: what the adapter really trains. */
export function loraFlags(lora: LoraConfigWire): { train_unembed: boolean; train_mlp: boolean; train_attn: boolean } {
  return { train_unembed: lora.train_unembed === true, train_mlp: lora.train_mlp !== false, train_attn: lora.train_attn !== false };
}
