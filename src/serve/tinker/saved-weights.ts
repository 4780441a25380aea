/**
 * The weights `save_weights` saved, by tinker:// path. In memory always; with a state folder
 * (`troupe serve --tinker --state-dir DIR`) also on disk, one safetensors file per path (the
 * adapter tensors, the Adam moments, and base model / LoRA shape / Adam step in the metadata),
 * so a restarted server can `load_weights` what a client saved before: a training run resumes
 * after the server went away. `delete` (the API's delete_checkpoint) removes both copies; Troupe's
 * trainer deletes the service checkpoints of the run checkpoints it prunes (train.keep_checkpoints),
 * so the folder holds what --resume can still use.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readSafetensors, writeSafetensors } from '../../engine/io/safetensors.js';
import type { AdapterSnapshot } from './training-model.js';

const ADAPTER = 'adapter.';
const OPTIMIZER = 'optimizer.';
const SUFFIX = '.safetensors';
const ALPHA_BEFORE_IT_WAS_RECORDED = 32;

export class SavedWeights {
  private readonly memory = new Map<string, AdapterSnapshot>();

  constructor(private readonly stateDir?: string) {
    if (stateDir !== undefined) mkdirSync(stateDir, { recursive: true });
  }

  has(path: string): boolean {
    return this.memory.has(path) || (this.stateDir !== undefined && existsSync(this.file(path)));
  }

  get(path: string): AdapterSnapshot | undefined {
    const found = this.memory.get(path);
    if (found !== undefined || this.stateDir === undefined || !existsSync(this.file(path))) return found;
    const snapshot = fromFile(this.file(path));
    this.memory.set(path, snapshot);
    return snapshot;
  }

  set(path: string, snapshot: AdapterSnapshot): void {
    if (this.stateDir !== undefined) toFile(this.file(path), snapshot);
    this.memory.set(path, snapshot);
  }

  /** Forgets `path` in memory and on disk (delete_checkpoint); false when nothing was saved there. */
  delete(path: string): boolean {
    const onDisk = this.stateDir !== undefined && existsSync(this.file(path));
    if (onDisk) rmSync(this.file(path));
    return this.memory.delete(path) || onDisk;
  }

  /** Every saved path (for error messages). */
  paths(): string[] {
    const onDisk = this.stateDir === undefined ? [] : readdirSync(this.stateDir).filter((f) => f.endsWith(SUFFIX)).map((f) => decodeURIComponent(f.slice(0, -SUFFIX.length)));
    return [...new Set([...this.memory.keys(), ...onDisk])];
  }

  private file(path: string): string {
    return join(this.stateDir!, `${encodeURIComponent(path)}${SUFFIX}`);
  }
}

function toFile(file: string, s: AdapterSnapshot): void {
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const [name, data] of s.tensors) tensors.set(`${ADAPTER}${name}`, { shape: [data.length], data });
  for (const [name, data] of s.optimizer?.tensors ?? []) tensors.set(`${OPTIMIZER}${name}`, { shape: [data.length], data });
  const metadata: Record<string, string> = { base_model: s.baseModel, lora: JSON.stringify(s.lora), lora_alpha: String(s.alpha) };
  if (s.optimizer) metadata.optimizer_step = String(s.optimizer.step);
  writeSafetensors(file, tensors, metadata);
}

function fromFile(file: string): AdapterSnapshot {
  const { tensors, metadata } = readSafetensors(file);
  const part = (prefix: string) => new Map([...tensors].filter(([name]) => name.startsWith(prefix)).map(([name, t]) => [name.slice(prefix.length), t.data as Float32Array]));
  const step = metadata?.optimizer_step;
  return {
    baseModel: metadata!.base_model!,
    lora: JSON.parse(metadata!.lora!),
    // Files written before the server recorded alpha were trained with its fixed alpha then, 32.
    alpha: metadata?.lora_alpha === undefined ? ALPHA_BEFORE_IT_WAS_RECORDED : Number(metadata.lora_alpha),
    tensors: part(ADAPTER),
    ...(step === undefined ? {} : { optimizer: { step: Number(step), tensors: part(OPTIMIZER) } }),
  };
}
