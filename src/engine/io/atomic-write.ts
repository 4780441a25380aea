/**
 * Writes that are all-or-nothing: a reader (or a crashed run resumed later) sees either the
 * old contents or the complete new ones, never a half-written file or folder. Everything is
 * first written under a temporary sibling name, then moved into place with `rename`, which is
 * atomic within one file system.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { failpoint } from '../../util/test-failpoint.js';

let tempCounter = 0;

/** A sibling path nobody else uses: same folder (so rename stays on one file system). */
function tempSibling(path: string, tag: string): string {
  tempCounter += 1;
  return join(dirname(path), `.${basename(path)}.${tag}-${process.pid}-${tempCounter}`);
}

function ioError(action: string, path: string, cause: unknown): TroupeError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new TroupeError('io', `could not ${action} ${path}: ${reason}`, { cause });
}

/** Writes one file atomically (temp file + rename). Creates the parent folder if needed. */
export function writeFileAtomic(path: string, contents: Uint8Array | string): void {
  const temp = tempSibling(path, 'tmp');
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temp, contents);
    failpoint('atomic-write', temp); // test-only: a kill here leaves the temporary file (util/test-failpoint.ts)
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw ioError('write', path, error);
  }
}

/** One file of a folder; `contents` runs only while the folder is being written. */
export interface FolderFile {
  readonly name: string;
  readonly contents: () => Uint8Array | string;
}

/**
 * Writes a folder of files atomically. If any `contents` callback or write fails, the temp
 * folder is removed and `dir` is left exactly as it was (absent, or its old contents).
 * An existing non-empty `dir` is replaced only with `overwrite: true`, so a typo in `--out`
 * cannot wipe an unrelated folder.
 */
export function writeFolderAtomic(dir: string, files: readonly FolderFile[], options: { overwrite?: boolean } = {}): void {
  const exists = existsSync(dir);
  if (exists && !statSync(dir).isDirectory()) {
    throw new TroupeError('io', `${dir} exists and is not a folder; choose another output path`);
  }
  if (exists && readdirSync(dir).length > 0 && !options.overwrite) {
    throw new TroupeError('io', `${dir} already exists and is not empty; remove it or choose another output path`);
  }
  mkdirSync(dirname(dir), { recursive: true });
  const temp = tempSibling(dir, 'tmp');
  try {
    mkdirSync(temp);
    for (const file of files) writeFileSync(join(temp, file.name), file.contents());
    failpoint('atomic-write', temp); // test-only: a kill here leaves the temporary folder (util/test-failpoint.ts)
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    if (error instanceof TroupeError) throw error;
    throw ioError('write', dir, error);
  }
  // Swap in: move the old folder aside first, so at every instant `dir` is complete.
  const old = exists ? tempSibling(dir, 'old') : undefined;
  try {
    if (old !== undefined) renameSync(dir, old);
    renameSync(temp, dir);
  } catch (error) {
    if (old !== undefined && !existsSync(dir) && existsSync(old)) renameSync(old, dir);
    rmSync(temp, { recursive: true, force: true });
    throw ioError('replace', dir, error);
  }
  if (old !== undefined) rmSync(old, { recursive: true, force: true });
}
