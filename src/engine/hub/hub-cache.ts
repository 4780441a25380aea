/**
 * Reading the hub cache (layout in types.ts): which snapshot a hub id means, whether it is
 * complete enough to load, and what the cache holds. Never touches the network.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE } from '../io/peft-adapter.js';
import { isCommitHash, repoFolderName } from './hub-id.js';
import type { CachedModel, HubId } from './types.js';

const INDEX_FILE = 'model.safetensors.index.json';

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

export function repoCacheDir(cacheDir: string, repo: string): string {
  return join(cacheDir, repoFolderName(repo));
}

/** The commit `id.revision` means in the cache: the hash itself, or what refs/<revision> holds. */
export function cachedCommit(cacheDir: string, id: HubId): string | undefined {
  if (isCommitHash(id.revision)) return id.revision;
  const commit = readText(join(repoCacheDir(cacheDir, id.repo), 'refs', ...id.revision.split('/')));
  return commit !== undefined && isCommitHash(commit) ? commit : undefined;
}

export function snapshotDir(cacheDir: string, repo: string, commit: string): string {
  return join(repoCacheDir(cacheDir, repo), 'snapshots', commit);
}

/**
 * Files a loadable snapshot lacks: config.json and the weights (model.safetensors, or every
 * shard the index names); for a PEFT adapter repo (adapter_config.json), its
 * adapter_model.safetensors. Tokenizer files are optional (`--ids` scores without one).
 */
export function missingModelFiles(dir: string): string[] {
  if (existsSync(join(dir, ADAPTER_CONFIG_FILE))) return [ADAPTER_WEIGHTS_FILE].filter((f) => !existsSync(join(dir, f)));
  const missing = ['config.json'].filter((f) => !existsSync(join(dir, f)));
  const indexPath = join(dir, INDEX_FILE);
  if (existsSync(indexPath)) {
    let shards: string[] = [];
    try {
      const index = JSON.parse(readFileSync(indexPath, 'utf8')) as { weight_map?: Record<string, string> };
      shards = [...new Set(Object.values(index.weight_map ?? {}))];
    } catch {
      return [...missing, INDEX_FILE];
    }
    return [...missing, ...shards.filter((s) => !existsSync(join(dir, s)))];
  }
  return [...missing, ...['model.safetensors'].filter((f) => !existsSync(join(dir, f)))];
}

/** The cached snapshot of a hub id when it is complete, else undefined. */
export function findCachedModel(cacheDir: string, id: HubId): string | undefined {
  const commit = cachedCommit(cacheDir, id);
  if (commit === undefined) return undefined;
  const dir = snapshotDir(cacheDir, id.repo, commit);
  return existsSync(dir) && missingModelFiles(dir).length === 0 ? dir : undefined;
}

function listRefs(refsDir: string, prefix = ''): Array<{ ref: string; commit: string }> {
  if (!existsSync(refsDir)) return [];
  return readdirSync(refsDir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(refsDir, entry.name);
    if (entry.isDirectory()) return listRefs(path, `${prefix}${entry.name}/`);
    const commit = readText(path);
    return commit !== undefined && isCommitHash(commit) ? [{ ref: `${prefix}${entry.name}`, commit }] : [];
  });
}

/**
 * Every model repo in the cache, one entry each: the snapshot `refs/main` points at, else
 * the most recently written one. Sorted by id. Datasets and spaces are skipped.
 */
export function listCachedRepos(cacheDir: string): CachedModel[] {
  if (!existsSync(cacheDir)) return [];
  const found: CachedModel[] = [];
  for (const folder of readdirSync(cacheDir).sort()) {
    // Org and Name never contain '--' (the hub forbids it), so the split is unambiguous.
    const [kind, org, name, ...rest] = folder.split('--');
    if (kind !== 'models' || org === undefined || name === undefined || rest.length > 0) continue;
    const root = join(cacheDir, folder);
    const snapshots = existsSync(join(root, 'snapshots')) ? readdirSync(join(root, 'snapshots')).filter(isCommitHash) : [];
    if (snapshots.length === 0) continue;
    const refs = listRefs(join(root, 'refs'));
    const main = refs.find((r) => r.ref === 'main' && snapshots.includes(r.commit))?.commit;
    const newest = () => snapshots.map((s) => ({ s, t: statSync(join(root, 'snapshots', s)).mtimeMs })).sort((a, b) => b.t - a.t)[0]!.s;
    const commit = main ?? newest();
    const dir = join(root, 'snapshots', commit);
    found.push({ id: `${org}/${name}`, commit, dir, refs: refs.filter((r) => r.commit === commit).map((r) => r.ref), complete: missingModelFiles(dir).length === 0 });
  }
  return found;
}
