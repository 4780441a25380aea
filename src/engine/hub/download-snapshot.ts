/**
 * Downloads what Troupe loads of one revision of a model repo into the hub cache:
 *
 *   1. GET /api/models/<Org/Name>/revision/<revision>: the commit (`sha`) and the file list;
 *   2. the metadata files Troupe reads (config, generation config, tokenizer, template,
 *      adapter config);
 *   3. the weights: the shards model.safetensors.index.json names, else model.safetensors,
 *      else every top-level *.safetensors file (nothing else: no .bin, .gguf, onnx, ...);
 *   4. refs/<revision> <- the commit, last, so the ref names only complete snapshots.
 *
 * Files already in the snapshot are not fetched again.
 */
import { existsSync, mkdirSync, writeFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { readJsonFile } from '../io/checkpoint.js';
import { downloadFile } from './download-file.js';
import { missingModelFiles, repoCacheDir, snapshotDir } from './hub-cache.js';
import { hubFetch, hubResponseError } from './hub-http.js';
import { formatHubId, isCommitHash } from './hub-id.js';
import type { HubEnv, HubId, ProgressSink } from './types.js';

/** Small files Troupe reads when a repo has them. */
export const METADATA_FILES = [
  'config.json',
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'chat_template.jinja',
  'adapter_config.json', // a PEFT adapter repo (its weights are adapter_model.safetensors)
] as const;
const INDEX_FILE = 'model.safetensors.index.json';

interface ModelInfo {
  readonly commit: string;
  readonly files: readonly string[];
}

async function fetchModelInfo(env: HubEnv, id: HubId): Promise<ModelInfo> {
  const what = formatHubId(id);
  const url = `${env.endpoint}/api/models/${id.repo}/revision/${encodeURIComponent(id.revision)}`;
  const response = await hubFetch(env, { method: 'GET', url, follow: 'all', what });
  if (!response.ok) throw hubResponseError(response, what);
  const info = (await response.json().catch(() => undefined)) as { sha?: unknown; siblings?: unknown } | undefined;
  const files = Array.isArray(info?.siblings) ? info.siblings.map((s: { rfilename?: unknown }) => s?.rfilename).filter((f): f is string => typeof f === 'string') : undefined;
  if (typeof info?.sha !== 'string' || !isCommitHash(info.sha) || files === undefined) {
    throw new TroupeError('io', `${url} did not answer with model info ({ sha, siblings: [{ rfilename }] }); is HF_ENDPOINT (${env.endpoint}) a Hugging Face hub?`);
  }
  return { commit: info.sha, files };
}

function shardsOf(indexPath: string): string[] {
  const map = (readJsonFile(indexPath) as { weight_map?: unknown } | null)?.weight_map;
  if (typeof map !== 'object' || map === null) throw new TroupeError('checkpoint', `${indexPath} has no weight_map object naming the shard of each tensor`);
  return [...new Set(Object.values(map as Record<string, unknown>).filter((v): v is string => typeof v === 'string'))];
}

function writeRef(env: HubEnv, id: HubId, commit: string): void {
  const path = join(repoCacheDir(env.cacheDir, id.repo), 'refs', ...id.revision.split('/'));
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.tmp`, commit); // no newline, as huggingface_hub writes it
    renameSync(`${path}.tmp`, path);
  } catch (error) {
    throw new TroupeError('io', `cannot write ${path} (${(error as Error).message}); point HF_HUB_CACHE at a writable folder`, { cause: error });
  }
}

/** Downloads what is missing of `id` and returns its snapshot folder. */
export async function downloadSnapshot(env: HubEnv, id: HubId, progress: ProgressSink): Promise<string> {
  const { commit, files } = await fetchModelInfo(env, id);
  const dir = snapshotDir(env.cacheDir, id.repo, commit);
  const fetchFile = async (file: string) => {
    if (!existsSync(join(dir, file))) await downloadFile(env, { repo: id.repo, commit, file }, progress);
  };
  for (const file of METADATA_FILES) if (files.includes(file)) await fetchFile(file);
  let weights: string[];
  if (files.includes(INDEX_FILE)) {
    await fetchFile(INDEX_FILE);
    weights = shardsOf(join(dir, INDEX_FILE));
  } else {
    weights = files.includes('model.safetensors') ? ['model.safetensors'] : files.filter((f) => !f.includes('/') && f.endsWith('.safetensors'));
  }
  if (weights.length === 0) {
    throw new TroupeError('checkpoint', `${formatHubId(id)} has no .safetensors weights (its files: ${files.slice(0, 12).join(', ')}${files.length > 12 ? ', ...' : ''}); Troupe loads safetensors checkpoints only`);
  }
  for (const file of weights) await fetchFile(file);
  const missing = missingModelFiles(dir);
  if (missing.length > 0) throw new TroupeError('checkpoint', `${formatHubId(id)} at commit ${commit} lacks ${missing.join(', ')}, which Troupe needs to load it`);
  if (!isCommitHash(id.revision)) writeRef(env, id, commit);
  return dir;
}
