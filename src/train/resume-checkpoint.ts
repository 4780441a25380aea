/**
 * What `troupe train --resume` (and a fresh start in an old folder) does with the checkpoints a
 * fault left behind: temporary folders of an interrupted save are removed (and the temporary
 * files of any other interrupted write in the run folder), a damaged newest
 * checkpoint gives way to the newest intact one (moved aside as `<name>.damaged`, with a
 * warning naming both), and a checkpoint computed by other kernels is refused unless the
 * caller allows the change, because the numbers would differ from that step on.
 */
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { TinkerUnreachableError } from '../tinker/tinker-unreachable-error.js';
import { TroupeError } from '../util/errors.js';
import { processAlive } from '../util/process-alive.js';
import { readPipelineFile } from './async/pipeline-file.js';
import type { PipelineState } from './async/step-pipeline.js';
import { listCheckpoints, loadTrainingCheckpoint, type CheckpointState } from './checkpoint-store.js';
import type { PolicySet } from './policy-set.js';
import { engineId, type EngineIdSource } from '../engine/kernels/engine-id.js';

/** Checkpoints are written to `checkpoints/.tmp-step-NNNNNN-<pid>` and renamed when complete. */
const UNFINISHED = /^\.tmp-step-\d{6}-\d+$/;

/**
 * Deletes the temporary folders of checkpoint saves that never finished (a kill or power loss
 * mid-write); returns their names. Safe because a finished save renames its folder.
 */
export function removeUnfinishedCheckpoints(runDir: string): string[] {
  const root = join(runDir, 'checkpoints');
  if (!existsSync(root)) return [];
  const unfinished = readdirSync(root).filter((name) => UNFINISHED.test(name));
  for (const name of unfinished) rmSync(join(root, name), { recursive: true, force: true });
  return unfinished;
}

/** What writeFileAtomic / writeFolderAtomic leave when killed before their rename: `.<name>.tmp-<pid>-<n>`. */
const INTERRUPTED_WRITE = /^\..+\.tmp-(\d+)-\d+$/;

/**
 * Deletes the temporary files and folders of atomic writes that never finished in the run
 * folder and its subfolders other than checkpoints/ (`.base.tmp-<pid>-<n>`: a warm-started base
 * model, `rollouts/.step-000003.jsonl.tmp-...`, `.report.html.tmp-...`), if their writer is gone;
 * returns their paths relative to the run folder. The real file or folder was never replaced.
 */
export function removeInterruptedWrites(runDir: string): string[] {
  if (!existsSync(runDir)) return [];
  const folders = ['', ...readdirSync(runDir, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'checkpoints' && !INTERRUPTED_WRITE.test(e.name)).map((e) => e.name)];
  const removed: string[] = [];
  for (const folder of folders) {
    for (const name of readdirSync(join(runDir, folder))) {
      const match = INTERRUPTED_WRITE.exec(name);
      if (!match || processAlive(Number(match[1]))) continue;
      rmSync(join(runDir, folder, name), { recursive: true, force: true });
      removed.push(folder === '' ? name : `${folder}/${name}`);
    }
  }
  return removed;
}

export interface ResumedCheckpoint {
  readonly step: number;
  readonly dir: string;
  readonly state: CheckpointState;
  /** Its pipeline.json (asynchronous runs), undefined when it has none. */
  readonly pipeline?: PipelineState;
}

/**
 * Loads the newest checkpoint that loads completely into `policies`. One that fails to load
 * (cut short, overwritten, bit rot) is renamed `<name>.damaged` and the next older one tried;
 * `warn` gets one line naming both. Returns undefined when the run has no checkpoint; throws
 * the newest one's error when none loads. A service that cannot be reached is not damage.
 */
export async function loadNewestIntactCheckpoint(runDir: string, policies: PolicySet, warn: (line: string) => void): Promise<ResumedCheckpoint | undefined> {
  const all = listCheckpoints(runDir).reverse();
  const damaged: { dir: string; reason: string }[] = [];
  for (const checkpoint of all) {
    try {
      const pipeline = readPipelineFile(checkpoint.dir);
      const state = await loadTrainingCheckpoint(checkpoint.dir, policies);
      for (const d of damaged) {
        rmSync(`${d.dir}.damaged`, { recursive: true, force: true }); // one from an earlier fault
        renameSync(d.dir, `${d.dir}.damaged`);
      }
      if (damaged.length > 0) {
        const names = damaged.map((d) => basename(d.dir)).join(', ');
        warn(`warning: checkpoint ${names} is damaged (${damaged[0]!.reason}); resuming from ${basename(checkpoint.dir)}, the newest intact one (the damaged one is kept as ${basename(damaged[0]!.dir)}.damaged)`);
      }
      return { ...checkpoint, state, ...(pipeline === undefined ? {} : { pipeline }) };
    } catch (error) {
      if (error instanceof TinkerUnreachableError) throw error;
      damaged.push({ dir: checkpoint.dir, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  if (damaged.length === 0) return undefined;
  throw new TroupeError('checkpoint', `no checkpoint of ${runDir} loads: ${damaged.map((d) => `${basename(d.dir)}: ${d.reason}`).join('; ')}. Start a new run, or remove the run folder`);
}

/**
 * Refuses to continue a run on kernels other than the ones its checkpoint was computed with
 * (`TROUPE_NO_NATIVE=1` under `engine.backend: auto` silently swaps native for WebAssembly),
 * unless `allow`, in which case `warn` says from which step the numbers differ.
 */
export function checkSameEngine(saved: ResumedCheckpoint, engine: string | undefined, allow: boolean, warn: (line: string) => void): void {
  if (saved.state.engine === undefined || engine === undefined || sameEngine(saved.state.engine, engine)) return;
  const what = `the run's checkpoint ${basename(saved.dir)} was computed by ${saved.state.engine}, and this process would continue on ${engine}`;
  if (!allow) {
    throw new TroupeError('config', `${what}: the numbers would differ from step ${saved.step + 1} on. Resume with the same engine (engine.backend, TROUPE_NO_NATIVE, TROUPE_BACKEND, TROUPE_BF16_MATMUL), or pass --allow-engine-change to accept it`);
  }
  warn(`warning: ${what} (--allow-engine-change); steps from ${saved.step + 1} on will not match an uninterrupted run`);
}

/**
 * How a checkpoint names the kernels that computed it (see CheckpointState.engine and
 * engine/kernels/engine-id.ts): backend and ISA, bf16 mode, multiply-add rounding and the
 * engine build. Not the thread count: results are bit-identical for every count, so a run may
 * resume on a machine with other cores.
 */
export function engineName(kernels: EngineIdSource): string {
  return engineId(kernels);
}

/** An engine name without the thread count that checkpoints written before 2026-11-26 carry. */
function withoutThreads(engine: string): string {
  return engine.replace(/, [0-9]+ threads?,/, ',');
}

/**
 * Whether two engine ids name the same engine. An id saved before the id named the
 * multiply-add rounding and build has only its first two fields (kernels, bf16 mode): those
 * are compared, so such a run still resumes where it was computed.
 */
function sameEngine(saved: string, now: string): boolean {
  const [a, b] = [withoutThreads(saved).split(', '), withoutThreads(now).split(', ')];
  const fields = a.length < b.length ? a.length : Math.max(a.length, b.length);
  return a.slice(0, fields).join(', ') === b.slice(0, fields).join(', ');
}
