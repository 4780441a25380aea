/**
 * The sampling targets of a Tinker server: sampling sessions and tinker:// sampler paths, each a
 * base model and a frozen copy of an adapter (installed on the base as its own adapter) or the
 * bare base. Named sampler weights (save_weights_for_sampler with a path) are checkpoints with
 * a time and an optional expiry; unnamed ones (one per RL step) keep only the newest few per model.
 *
 *   snapshots.freeze(model, path, { named: false, time });   // path now samples the adapter as it is
 */
import type { LoraConfigWire } from '../../tinker/types.js';
import type { CheckpointPatch } from './checkpoint-flags.js';
import type { LoadedBase } from './base-models.js';
import { withPatch } from './saved-weights.js';
import { TrainingModel, type AdapterSnapshot } from './training-model.js';
import type { CheckpointRecord } from './training-runs.js';

/** What a sampling session samples from: a base, and an adapter of it (a frozen snapshot) or none. */
export interface SamplerTarget {
  readonly base: LoadedBase;
  readonly adapter?: string;
  readonly lora?: LoraConfigWire;
  readonly modelPath?: string;
}

/** Unnamed sampler snapshots kept per training model (older ones are freed: RL makes one per step). */
export const EPHEMERAL_SAMPLERS_KEPT = 4;

/** Told of every adapter a snapshot adds to or removes from a base (a sampling thread keeps copies). */
export interface SnapshotListener {
  installed(base: LoadedBase, adapter: string): void;
  dropped(base: LoadedBase, adapter: string): void;
}

export class SamplerSnapshots {
  listener: SnapshotListener | undefined;
  private readonly targets = new Map<string, SamplerTarget>();
  private readonly named = new Map<string, CheckpointRecord>();
  private readonly ephemeral = new Map<string, string[]>();

  get(id: string): SamplerTarget | undefined {
    return this.targets.get(id);
  }

  set(id: string, target: SamplerTarget): void {
    this.targets.set(id, target);
  }

  /** Makes `path` sample model `m`'s adapter as it is now (replacing what `path` sampled before). */
  freeze(m: TrainingModel, path: string, options: { named: boolean; time: Date; expiresAt?: Date; sizeBytes: number }): void {
    if (this.targets.has(path)) this.drop(path);
    const adapter = `${m.id}@${path}`;
    this.install(m.base, adapter, m.snapshot(false));
    this.targets.set(path, { base: m.base, adapter, lora: m.lora, modelPath: path });
    if (options.named) {
      this.named.set(path, { path, time: options.time, ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}), sizeBytes: options.sizeBytes });
      return;
    }
    const list = this.ephemeral.get(m.id) ?? [];
    list.push(path);
    while (list.length > EPHEMERAL_SAMPLERS_KEPT) this.drop(list.shift()!);
    this.ephemeral.set(m.id, list);
  }

  /** Frees the unnamed snapshots of a model (it was unloaded). */
  dropEphemeral(modelId: string): void {
    for (const path of this.ephemeral.get(modelId) ?? []) this.drop(path);
    this.ephemeral.delete(modelId);
  }

  /** delete_checkpoint of named sampler weights; false when there are none at `path`. */
  deleteNamed(path: string): boolean {
    if (!this.named.has(path)) return false;
    this.drop(path);
    return true;
  }

  /** Publishes or expires named sampler weights (kept in memory: they do not outlive the server); undefined when there are none at `path`. */
  update(path: string, patch: CheckpointPatch): CheckpointRecord | undefined {
    const record = this.named.get(path);
    if (record === undefined) return undefined;
    const updated = withPatch(record, patch);
    this.named.set(path, updated);
    return updated;
  }

  /** The adapter weights `path` samples (for the checkpoint archive), or undefined. */
  weightsOf(path: string): AdapterSnapshot | undefined {
    const t = this.targets.get(path);
    const adapter = t?.adapter === undefined ? undefined : t.base.model.adapters.get(t.adapter);
    if (adapter === undefined || t?.lora === undefined) return undefined;
    return { baseModel: t.base.name, lora: t.lora, alpha: adapter.config.alpha, tensors: new Map([...adapter.parameters].map(([name, p]) => [name, p.data as Float32Array])) };
  }

  /** Named sampler weights whose ttl_seconds ran out are freed. */
  sweep(now: number): void {
    for (const c of [...this.named.values()]) if (c.expiresAt !== undefined && c.expiresAt.getTime() <= now) this.drop(c.path);
  }

  checkpoints(): CheckpointRecord[] {
    return [...this.named.values()];
  }

  /** Adds adapter `name` to `base` with the snapshot's weights. */
  install(base: LoadedBase, name: string, snapshot: AdapterSnapshot): void {
    const adapter = TrainingModel.adapterFor(base, name, snapshot.lora, { alpha: snapshot.alpha });
    for (const [tensor, t] of adapter.parameters) t.data.set(snapshot.tensors.get(tensor)!);
    this.listener?.installed(base, name);
  }

  private drop(path: string): void {
    const t = this.targets.get(path);
    if (t?.adapter && t.base.model.adapters.has(t.adapter)) {
      t.base.model.removeAdapter(t.adapter);
      this.listener?.dropped(t.base, t.adapter);
    }
    this.targets.delete(path);
    this.named.delete(path);
  }
}
