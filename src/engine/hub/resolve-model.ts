/**
 * The one entry point from a model argument to a folder (see types.ts for the cache layout):
 *
 *   - an existing path is a folder, returned as given;
 *   - `dir/name` whose `dir` is a folder here is a mistyped path, never looked up on the hub;
 *   - else `Org/Name[@revision]` is a hub id: its complete snapshot in the cache, with no
 *     request at all; when absent and online, downloaded into the cache first;
 *   - else an error saying it is neither.
 *
 * A cached ref is trusted as it is (no check for newer commits): runs stay reproducible and
 * work offline. Pass `Org/Name@<commit>` to pin, or delete refs/main to pick up a new one.
 */
import { existsSync, statSync } from 'node:fs';
import { TroupeError } from '../../util/errors.js';
import { downloadSnapshot } from './download-snapshot.js';
import { cachedCommit, findCachedModel, listCachedRepos, missingModelFiles, repoCacheDir, snapshotDir } from './hub-cache.js';
import { readHubEnv } from './hub-env.js';
import { formatHubId, parseHubId } from './hub-id.js';
import type { CachedModel, HubEnv, ProgressSink } from './types.js';

export interface ResolveModelOptions {
  /** Defaults to readHubEnv() (process.env). */
  readonly env?: HubEnv;
  /** Download progress (default process.stderr). */
  readonly progress?: ProgressSink;
}

function notAHubId(text: string): TroupeError {
  return new TroupeError('input', `no such folder ${JSON.stringify(text)}, and it is not a hub id (Org/Name or Org/Name@revision); pass an existing model folder or a hub id such as Qwen/Qwen3-0.6B`);
}

/**
 * A missing `models/nope` whose first part (`models/`) is a folder here: a path with a typo,
 * which the hub would answer with a confusing not-found (or a network error offline).
 */
function missingLocalFolder(text: string): TroupeError | undefined {
  const first = text.split('/')[0]!;
  if (!text.includes('/') || first === '' || !existsSync(first) || !statSync(first).isDirectory()) return undefined;
  return new TroupeError('input', `no such folder ${JSON.stringify(text)} (${first}/ is a folder here, so it is read as a path, not a hub id); check the folder name, or list what is there with: ls ${first}`);
}

/**
 * Throws the error resolveModel would give before any hub request: `idOrFolder` is neither an
 * existing path nor spelled like a hub id, or is a mistyped path (see missingLocalFolder). For
 * checks that run before anything is written.
 */
export function checkFolderOrHubId(idOrFolder: string): void {
  if (existsSync(idOrFolder)) return;
  const typo = missingLocalFolder(idOrFolder);
  if (typo) throw typo;
  if (parseHubId(idOrFolder) === undefined) throw notAHubId(idOrFolder);
}

/**
 * The folder `idOrFolder` names, without downloading: a folder, or a complete cached
 * snapshot. Throws when it is neither (for callers that cannot wait, e.g. an adapter's
 * base_model_name_or_path).
 */
export function findModelFolder(idOrFolder: string, env: HubEnv = readHubEnv()): string {
  checkFolderOrHubId(idOrFolder);
  if (existsSync(idOrFolder)) return idOrFolder;
  const id = parseHubId(idOrFolder)!;
  const dir = findCachedModel(env.cacheDir, id);
  if (dir !== undefined) return dir;
  const commit = cachedCommit(env.cacheDir, id);
  const missing = commit === undefined ? '' : ` (snapshot ${commit} lacks ${missingModelFiles(snapshotDir(env.cacheDir, id.repo, commit)).join(', ')})`;
  const where = `${formatHubId(id)} is not in the cache at ${repoCacheDir(env.cacheDir, id.repo)}${missing}`;
  if (env.offline) throw new TroupeError('checkpoint', `${where} and HF_HUB_OFFLINE is set; unset HF_HUB_OFFLINE (and TRANSFORMERS_OFFLINE) to download it, or pass a model folder`);
  throw new TroupeError('checkpoint', `${where}; download it first (e.g. \`troupe model download ${formatHubId(id)}\`), or pass a model folder`);
}

/** `idOrFolder` as a model folder: as given, from the hub cache, or downloaded into it. */
export async function resolveModel(idOrFolder: string, options: ResolveModelOptions = {}): Promise<string> {
  const env = options.env ?? readHubEnv();
  checkFolderOrHubId(idOrFolder);
  if (existsSync(idOrFolder)) return idOrFolder;
  const id = parseHubId(idOrFolder)!;
  const cached = findCachedModel(env.cacheDir, id);
  if (cached !== undefined) return cached;
  if (env.offline) return findModelFolder(idOrFolder, env); // throws the not-cached error
  try {
    return await downloadSnapshot(env, id, options.progress ?? process.stderr);
  } catch (error) {
    // `models/nope` with no `models/` here reads as a hub id too: when the hub cannot be reached or
    // does not have it (hub-http's messages), say that it is no folder either, for the user who
    // meant a path. Other failures (a full disk, a repo without weights) are not about the name.
    if (!(error instanceof TroupeError) || !/cannot reach|does not exist|is not on the hub/.test(error.message)) throw error;
    throw new TroupeError(error.category, `${error.message}; nor is there a folder ${JSON.stringify(idOrFolder)} in ${process.cwd()} (if you meant a path, check its spelling)`, { cause: error });
  }
}

/** Every model repo in the hub cache (one snapshot each, see listCachedRepos). */
export function listCachedModels(env: HubEnv = readHubEnv()): CachedModel[] {
  return listCachedRepos(env.cacheDir);
}
