/**
 * The weights `save_weights` saved, by tinker:// path, with when they were saved and when they
 * expire (`ttl_seconds`). Without a state folder they live in memory; with one
 * (`troupe serve --tinker --state-dir DIR`) they live only on disk, one safetensors file per path
 * (the adapter tensors, the Adam moments, and base model / LoRA shape / Adam step / times in the
 * metadata), so a restarted server can `load_weights` what a client saved before and memory
 * does not grow with every checkpoint. `delete` (the API's delete_checkpoint) removes them;
 * Troupe's trainer deletes the service checkpoints of the run checkpoints it prunes
 * (train.keep_checkpoints), so the folder holds what --resume can still use.
 *
 * Expired checkpoints are removed whenever the list is consulted. A server killed while writing
 * leaves a `.<name>.safetensors.tmp-<pid>-<n>` file; opening the folder removes those of
 * processes that are gone.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseHeaderJson, readHeaderLength, readSafetensors, writeSafetensors } from '../../engine/io/safetensors.js';
import { loraHeadParameterName } from '../../engine/model/lora.js';
import { processAlive } from '../../util/process-alive.js';
import { CheckpointFlags, type CheckpointPatch } from './checkpoint-flags.js';
import { TinkerApiError } from './tinker-api-error.js';
import type { AdapterSnapshot } from './training-model.js';

const ADAPTER = 'adapter.';
const OPTIMIZER = 'optimizer.';
const SUFFIX = '.safetensors';
const ALPHA_BEFORE_IT_WAS_RECORDED = 32;
const LEFTOVER = /^\..+\.safetensors\.tmp-(\d+)-\d+$/;

/** When a checkpoint was saved and when it expires (undefined: kept until deleted). */
export interface SavedRecord {
  readonly path: string;
  readonly baseModel: string;
  readonly loraRank: number;
  readonly time: Date;
  readonly expiresAt?: Date;
  readonly sizeBytes: number;
  /** Published (POST .../publish); kept in checkpoint-flags.json. */
  readonly public?: boolean;
}

export class SavedWeights {
  private readonly memory = new Map<string, AdapterSnapshot>();
  private readonly records = new Map<string, SavedRecord>();
  private readonly flags: CheckpointFlags;

  constructor(
    private readonly stateDir?: string,
    private readonly now: () => number = Date.now,
  ) {
    this.flags = new CheckpointFlags(stateDir);
    if (stateDir === undefined) return;
    mkdirSync(stateDir, { recursive: true });
    for (const file of readdirSync(stateDir)) {
      const leftover = LEFTOVER.exec(file);
      if (leftover && !processAlive(Number(leftover[1]))) rmSync(join(stateDir, file), { force: true });
      else if (file.endsWith(SUFFIX) && !file.startsWith('.')) this.indexFile(file);
    }
  }

  /** True when checkpoints live on disk (a state folder), not in memory. */
  get onDisk(): boolean {
    return this.stateDir !== undefined;
  }

  has(path: string): boolean {
    this.sweep();
    return this.records.has(path);
  }

  get(path: string): AdapterSnapshot | undefined {
    if (!this.has(path)) return undefined;
    return this.memory.get(path) ?? fromFile(this.file(path));
  }

  set(path: string, snapshot: AdapterSnapshot, ttlSeconds?: number): SavedRecord {
    const time = new Date(this.now());
    const expiresAt = ttlSeconds === undefined ? undefined : new Date(time.getTime() + ttlSeconds * 1000);
    if (this.stateDir === undefined) this.memory.set(path, snapshot);
    else {
      try {
        toFile(this.file(path), snapshot, time, expiresAt);
      } catch (error) {
        throw notWritten(path, error);
      }
    }
    this.flags.forget(path); // a new save under the name starts private, with its own ttl
    const record = { path, baseModel: snapshot.baseModel, loraRank: snapshot.lora.rank, time, ...(expiresAt ? { expiresAt } : {}), sizeBytes: snapshotBytes(snapshot) };
    this.records.set(path, record);
    return record;
  }

  /** Publishes or expires `path` (checkpoint-admin routes); the updated record, or undefined when nothing is saved there. */
  update(path: string, patch: CheckpointPatch): SavedRecord | undefined {
    const record = this.has(path) ? this.records.get(path)! : undefined;
    if (record === undefined) return undefined;
    this.flags.set(path, patch);
    const updated = withPatch(record, patch);
    this.records.set(path, updated);
    return updated;
  }

  /** Forgets `path` in memory and on disk (delete_checkpoint); false when nothing was saved there. */
  delete(path: string): boolean {
    const known = this.records.delete(path);
    this.memory.delete(path);
    this.flags.forget(path);
    if (this.stateDir !== undefined) rmSync(this.file(path), { force: true });
    return known;
  }

  /** Every live checkpoint, oldest first (expired ones are removed first). */
  list(): SavedRecord[] {
    this.sweep();
    return [...this.records.values()].sort((a, b) => a.time.getTime() - b.time.getTime());
  }

  /** Every saved path (for error messages). */
  paths(): string[] {
    return this.list().map((r) => r.path);
  }

  /** Bytes the in-memory checkpoints hold (0 with a state folder: they are on disk). */
  memoryBytes(): number {
    let bytes = 0;
    for (const s of this.memory.values()) bytes += snapshotBytes(s);
    return bytes;
  }

  /** Removes every checkpoint whose ttl_seconds has run out. */
  sweep(): void {
    const now = this.now();
    for (const r of [...this.records.values()]) if (r.expiresAt !== undefined && r.expiresAt.getTime() <= now) this.delete(r.path);
  }

  private indexFile(file: string): void {
    const path = decodeURIComponent(file.slice(0, -SUFFIX.length));
    const full = join(this.stateDir!, file);
    try {
      const metadata = readMetadata(full);
      const stat = statSync(full);
      const time = metadata.saved_at ? new Date(metadata.saved_at) : stat.mtime;
      const saved = { path, baseModel: metadata.base_model ?? '', loraRank: Number((JSON.parse(metadata.lora ?? '{}') as { rank?: number }).rank ?? 0), time, ...(metadata.expires_at ? { expiresAt: new Date(metadata.expires_at) } : {}), sizeBytes: stat.size };
      this.records.set(path, withPatch(saved, this.flags.get(path)));
    } catch {
      // A damaged file is not offered; load_weights of it then says it is not there.
    }
  }

  private file(path: string): string {
    return join(this.stateDir!, `${encodeURIComponent(path)}${SUFFIX}`);
  }
}

/** `record` with a publish / ttl change applied (`expiresAt` null: no expiry). */
export function withPatch<T extends { readonly expiresAt?: Date; readonly public?: boolean }>(record: T, patch: CheckpointPatch): T {
  const { expiresAt, ...rest } = record;
  const expiry = patch.expiresAt === undefined ? expiresAt : (patch.expiresAt ?? undefined);
  return { ...rest, ...(expiry === undefined ? {} : { expiresAt: expiry }), ...(patch.public === undefined ? {} : { public: patch.public }) } as T;
}

/**
 * A save the state folder could not take (a full disk, a read-only one), said without the
 * folder's path: clients never see the server's paths. writeFileAtomic removed its temporary
 * file, so nothing half-written is left and the earlier checkpoints are untouched.
 */
function notWritten(path: string, error: unknown): TinkerApiError {
  const code = ((error as { cause?: NodeJS.ErrnoException }).cause ?? (error as NodeJS.ErrnoException)).code;
  if (code === 'ENOSPC') return new TinkerApiError(507, `${path} was not saved: the disk of the server's state folder is full (ENOSPC); the earlier checkpoints are intact. delete_checkpoint old ones or free space on the server, then save again`);
  return new TinkerApiError(500, `${path} was not saved: the server could not write its state folder (${code ?? (error instanceof Error ? error.name : 'unknown error')}); the earlier checkpoints are intact`);
}

/** Bytes of a snapshot's tensors (adapter and Adam moments). */
export function snapshotBytes(s: AdapterSnapshot): number {
  let values = 0;
  for (const t of s.tensors.values()) values += t.length;
  for (const t of s.optimizer?.tensors.values() ?? []) values += t.length;
  return values * 4;
}

/** The metadata of a safetensors file, reading only its header. */
function readMetadata(file: string): Record<string, string> {
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const first8 = new Uint8Array(8);
    readSync(fd, first8, 0, 8, 0);
    const length = readHeaderLength(first8, size, file);
    const json = new Uint8Array(length);
    readSync(fd, json, 0, length, 8);
    return parseHeaderJson(json, size - 8 - length, file).metadata;
  } finally {
    closeSync(fd);
  }
}

function toFile(file: string, s: AdapterSnapshot, time: Date, expiresAt: Date | undefined): void {
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const [name, data] of s.tensors) tensors.set(`${ADAPTER}${name}`, { shape: [data.length], data });
  for (const [name, data] of s.optimizer?.tensors ?? []) tensors.set(`${OPTIMIZER}${name}`, { shape: [data.length], data });
  const metadata: Record<string, string> = { base_model: s.baseModel, lora: JSON.stringify(s.lora), lora_alpha: String(s.alpha), saved_at: time.toISOString() };
  if (expiresAt) metadata.expires_at = expiresAt.toISOString();
  if (s.optimizer) metadata.optimizer_step = String(s.optimizer.step);
  writeSafetensors(file, tensors, metadata);
}

function fromFile(file: string): AdapterSnapshot | undefined {
  if (!existsSync(file)) return undefined;
  const { tensors, metadata } = readSafetensors(file);
  const part = (prefix: string) => new Map([...tensors].filter(([name]) => name.startsWith(prefix)).map(([name, t]) => [name.slice(prefix.length), t.data as Float32Array]));
  const step = metadata?.optimizer_step;
  const adapter = part(ADAPTER);
  const lora = JSON.parse(metadata!.lora!) as AdapterSnapshot['lora'];
  return {
    baseModel: metadata!.base_model!,
    // Servers before 2026-11-26 accepted train_unembed without training the head: say what the file holds.
    lora: lora.train_unembed && !adapter.has(loraHeadParameterName('A')) ? { ...lora, train_unembed: false } : lora,
    // Files written before the server recorded alpha were trained with its fixed alpha then, 32.
    alpha: metadata?.lora_alpha === undefined ? ALPHA_BEFORE_IT_WAS_RECORDED : Number(metadata.lora_alpha),
    tensors: adapter,
    ...(step === undefined ? {} : { optimizer: { step: Number(step), tensors: part(OPTIMIZER) } }),
  };
}
