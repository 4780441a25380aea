/**
 * What the checkpoint-admin routes changed about saved training weights after they were saved:
 * `public` (publish / unpublish) and a new expiry (PUT .../ttl). With --state-dir they are kept
 * in one small JSON file beside the checkpoints (`checkpoint-flags.json`, rewritten atomically),
 * so a restarted server lists and expires checkpoints as the clients left them; without one
 * they live in memory. The checkpoint files themselves are never rewritten for a flag.
 *
 *   flags.set('tinker://run/weights/step-3', { public: true });
 *   flags.get('tinker://run/weights/step-3');   // { public: true }
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../engine/io/atomic-write.js';

/** A change to a checkpoint: `expiresAt` null removes its expiry. */
export interface CheckpointPatch {
  readonly public?: boolean;
  readonly expiresAt?: Date | null;
}

export const FLAGS_FILE = 'checkpoint-flags.json';

interface StoredFlags {
  public?: boolean;
  /** ISO time, or null: the expiry the save set was removed. */
  expires_at?: string | null;
}

export class CheckpointFlags {
  private readonly flags = new Map<string, StoredFlags>();

  /** `warn`: one line when the flags file is damaged (default: stderr, the server's log). */
  constructor(
    private readonly stateDir?: string,
    warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {
    const file = this.file();
    if (file === undefined || !existsSync(file)) return;
    try {
      for (const [path, stored] of Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, StoredFlags>)) this.flags.set(path, stored);
    } catch (error) {
      // A damaged flags file (hand-edited, truncated) loses only the flags: checkpoints stay private,
      // with their saved expiry. It is kept aside, not overwritten by the next change.
      this.flags.clear();
      renameSync(file, `${file}.damaged`);
      warn(`warning: ${file} does not parse (${error instanceof Error ? error.message : String(error)}); publish flags and TTLs set since the saves are reset (kept as ${FLAGS_FILE}.damaged)`);
    }
  }

  /** The changes made to `path` since it was saved. */
  get(path: string): CheckpointPatch {
    const stored = this.flags.get(path);
    if (stored === undefined) return {};
    return {
      ...(stored.public === undefined ? {} : { public: stored.public }),
      ...(stored.expires_at === undefined ? {} : { expiresAt: stored.expires_at === null ? null : new Date(stored.expires_at) }),
    };
  }

  set(path: string, patch: CheckpointPatch): void {
    const stored = { ...this.flags.get(path) };
    if (patch.public !== undefined) stored.public = patch.public;
    if (patch.expiresAt !== undefined) stored.expires_at = patch.expiresAt === null ? null : patch.expiresAt.toISOString();
    this.flags.set(path, stored);
    this.save();
  }

  /** The checkpoint was deleted (or overwritten by a new save): its flags go with it. */
  forget(path: string): void {
    if (this.flags.delete(path)) this.save();
  }

  private save(): void {
    const file = this.file();
    if (file !== undefined) writeFileAtomic(file, `${JSON.stringify(Object.fromEntries(this.flags), null, 1)}\n`);
  }

  private file(): string | undefined {
    return this.stateDir === undefined ? undefined : join(this.stateDir, FLAGS_FILE);
  }
}
