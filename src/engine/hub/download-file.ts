/**
 * Downloads one file of a snapshot into the cache the way huggingface_hub does, so either
 * tool can finish or reuse what the other started:
 *
 *   1. HEAD resolve/<commit>/<file> (redirects to the CDN not followed): the etag is
 *      X-Linked-Etag (large files: their sha256) or ETag (small files: the git blob id).
 *   2. blobs/<etag> exists: done. Else GET into blobs/<etag>.incomplete, continuing an
 *      existing .incomplete with a Range request.
 *   3. Check the size and the hash the etag promises, rename to blobs/<etag> (atomic), and
 *      only then link snapshots/<commit>/<file> -> ../../blobs/<etag>.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { lockBlob } from './blob-lock.js';
import { startFileProgress } from './download-progress.js';
import { repoCacheDir, snapshotDir } from './hub-cache.js';
import { hubFetch, hubResponseError } from './hub-http.js';
import type { HubEnv, ProgressSink } from './types.js';

export interface FileToDownload {
  readonly repo: string;
  readonly commit: string;
  /** Path inside the repo, '/'-separated. */
  readonly file: string;
}

/** `W/"abc"` and `"abc"` -> `abc` (the ETag forms HTTP allows). */
function normalizeEtag(etag: string | null): string | undefined {
  return etag === null ? undefined : etag.replace(/^W\//, '').replace(/^"|"$/g, '');
}

function diskError(path: string, error: unknown): TroupeError {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  const hint = code === 'ENOSPC' ? 'free some disk space or' : code === 'EACCES' || code === 'EROFS' ? 'make it writable or' : 'check the disk or';
  return new TroupeError('io', `cannot write ${path} (${code}); ${hint} point HF_HUB_CACHE at another folder`, { cause: error });
}

export function resolveUrl(env: HubEnv, f: FileToDownload): string {
  return `${env.endpoint}/${f.repo}/resolve/${f.commit}/${f.file.split('/').map(encodeURIComponent).join('/')}`;
}

/** The hash a blob's etag promises, or undefined when the etag is not a content hash. */
async function blobHashMatches(path: string, etag: string): Promise<boolean | undefined> {
  let hash;
  if (/^[0-9a-f]{64}$/.test(etag)) hash = createHash('sha256');
  else if (/^[0-9a-f]{40}$/.test(etag)) hash = createHash('sha1').update(`blob ${statSync(path).size}\0`); // git's blob id
  else return undefined;
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex') === etag;
}

async function headFile(env: HubEnv, f: FileToDownload, what: string): Promise<{ etag: string; size?: number }> {
  const response = await hubFetch(env, { method: 'HEAD', url: resolveUrl(env, f), follow: 'relative', what });
  if (response.status >= 400) throw hubResponseError(response, what);
  const etag = normalizeEtag(response.headers.get('x-linked-etag') ?? response.headers.get('etag'));
  if (etag === undefined || etag.length === 0 || etag.includes('/')) {
    throw new TroupeError('io', `${resolveUrl(env, f)} sent no usable ETag (got ${JSON.stringify(etag ?? null)}); is HF_ENDPOINT (${env.endpoint}) a Hugging Face hub?`);
  }
  const size = Number(response.headers.get('x-linked-size') ?? response.headers.get('content-length') ?? NaN);
  return { etag, ...(Number.isFinite(size) ? { size } : {}) };
}

/** Appends the body of a GET (Range from the .incomplete's size) to the .incomplete file. */
async function fetchInto(env: HubEnv, f: FileToDownload, incomplete: string, options: { what: string; size?: number; progress: ProgressSink }): Promise<void> {
  let offset = existsSync(incomplete) ? statSync(incomplete).size : 0;
  if (options.size !== undefined && offset > options.size) offset = 0;
  const range = offset > 0 ? { range: `bytes=${offset}-` } : undefined;
  const response = await hubFetch(env, { method: 'GET', url: resolveUrl(env, f), headers: range, follow: 'all', what: options.what });
  if (response.status === 416 && offset === options.size) return; // everything was already there
  if (response.status >= 400) throw hubResponseError(response, options.what);
  if (response.status !== 206) offset = 0; // the server ignored the Range: start over
  let handle;
  try {
    handle = await open(incomplete, offset > 0 ? 'a' : 'w');
  } catch (error) {
    throw diskError(incomplete, error);
  }
  const progress = startFileProgress(options.progress, { label: `${f.repo}/${f.file}`, total: options.size, resumedAt: offset });
  try {
    for await (const chunk of response.body ?? []) {
      try {
        await handle.write(chunk as Uint8Array);
      } catch (error) {
        throw diskError(incomplete, error);
      }
      progress.advance((chunk as Uint8Array).length);
    }
  } catch (error) {
    if (error instanceof TroupeError) throw error;
    throw new TroupeError('io', `the download of ${options.what} broke off (${(error as Error).message}); run the same command again to resume it`, { cause: error });
  } finally {
    await handle.close();
  }
  progress.done();
}

/** Makes snapshots/<commit>/<file> a relative symlink to `blob`. */
function linkSnapshotFile(link: string, blob: string): void {
  try {
    mkdirSync(dirname(link), { recursive: true });
    rmSync(link, { force: true });
    symlinkSync(relative(dirname(link), blob), link);
  } catch (error) {
    throw diskError(link, error);
  }
}

/** Downloads `f` into the cache (or reuses its blob) and links it into the snapshot. */
export async function downloadFile(env: HubEnv, f: FileToDownload, progress: ProgressSink): Promise<void> {
  const what = `${f.file} of ${f.repo}`;
  const { etag, size } = await headFile(env, f, what);
  const blobs = join(repoCacheDir(env.cacheDir, f.repo), 'blobs');
  const blob = join(blobs, etag);
  if (!existsSync(blob)) {
    try {
      mkdirSync(blobs, { recursive: true });
    } catch (error) {
      throw diskError(blobs, error);
    }
    const release = await lockBlob(blob, (pid) => progress.write(`waiting for process ${pid}, which is downloading ${what}\n`));
    try {
      if (!existsSync(blob)) await downloadBlob(env, f, { blob, what, etag, size, progress });
    } finally {
      release();
    }
  }
  linkSnapshotFile(join(snapshotDir(env.cacheDir, f.repo, f.commit), ...f.file.split('/')), blob);
}

/** GETs `f` into `<blob>.incomplete` (resuming it), checks it and renames it to `blob`. */
async function downloadBlob(env: HubEnv, f: FileToDownload, o: { blob: string; what: string; etag: string; size?: number; progress: ProgressSink }): Promise<void> {
  const { blob, what, etag, size, progress } = o;
  const incomplete = `${blob}.incomplete`;
  await fetchInto(env, f, incomplete, { what, size, progress });
  const got = statSync(incomplete).size;
  const hashOk = await blobHashMatches(incomplete, etag);
  if ((size !== undefined && got !== size) || hashOk === false) {
    rmSync(incomplete, { force: true });
    throw new TroupeError('io', `${what} arrived damaged (${got} bytes${size !== undefined ? ` of ${size}` : ''}${hashOk === false ? ', content hash differs from its etag' : ''}); the partial file was removed, run the command again`);
  }
  try {
    renameSync(incomplete, blob);
  } catch (error) {
    throw diskError(blob, error);
  }
}
