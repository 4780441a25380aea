/**
 * A local imitation of the Hugging Face hub's routes for tests (127.0.0.1 only):
 *
 *   GET  /api/models/<Org/Name>/revision/<rev>   { sha, siblings: [{ rfilename }] }
 *   HEAD|GET /<Org/Name>/resolve/<rev>/<file>     small files: 200 + ETag (git blob id);
 *                                                 *.safetensors: 302 to the CDN + X-Linked-Etag (sha256)
 *   GET  <cdn>/<sha256>                           the bytes, honouring Range (206)
 *
 * The CDN is a second server (another origin, like the real one), so tests can check that the
 * token is not sent there. `cutNextCdnResponseAfter` drops the connection mid-file once.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface FakeRepo {
  readonly commit: string;
  readonly files: ReadonlyMap<string, Buffer>;
  /** Requests without `Authorization: Bearer <token>` get 401 GatedRepo. */
  readonly token?: string;
}

export interface RecordedRequest {
  readonly server: 'hub' | 'cdn';
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
}

export interface FakeHub {
  readonly endpoint: string;
  readonly requests: RecordedRequest[];
  /** The next CDN GET sends this many bytes, then waits for `dropHeldResponse`. */
  cutNextCdnResponseAfter?: number;
  /** Destroys the connection of the response `cutNextCdnResponseAfter` held open. */
  dropHeldResponse(): void;
  close(): Promise<void>;
}

export function gitBlobId(data: Buffer): string {
  return createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
}

/**
 * Writes a snapshot as huggingface_hub leaves it on disk (blobs named by git blob id,
 * relative snapshot symlinks, refs/main), without any server. Returns the snapshot folder.
 */
export function writeCachedSnapshot(cacheDir: string, repo: string, commit: string, files: ReadonlyMap<string, Buffer>): string {
  const repoDir = join(cacheDir, `models--${repo.replace('/', '--')}`);
  const snapshot = join(repoDir, 'snapshots', commit);
  for (const dir of ['blobs', 'refs']) mkdirSync(join(repoDir, dir), { recursive: true });
  mkdirSync(snapshot, { recursive: true });
  for (const [name, data] of files) {
    writeFileSync(join(repoDir, 'blobs', gitBlobId(data)), data);
    symlinkSync(join('..', '..', 'blobs', gitBlobId(data)), join(snapshot, name));
  }
  writeFileSync(join(repoDir, 'refs', 'main'), commit);
  return snapshot;
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function listen(server: Server, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve) => server.listen(0, host, () => resolve(`http://${host}:${(server.address() as AddressInfo).port}`)));
}

function fail(res: ServerResponse, status: number, code: string): void {
  res.writeHead(status, { 'x-error-code': code, 'x-error-message': `${code} (fake hub)` }).end();
}

/**
 * `cdnHost`: huggingface_hub follows redirects within one host name, so a check against it
 * (by hand, not in npm test) needs the CDN on another loopback address such as 127.0.0.2.
 */
export async function startFakeHub(repos: ReadonlyMap<string, FakeRepo>, options: { cdnHost?: string } = {}): Promise<FakeHub> {
  const blobs = new Map<string, Buffer>();
  for (const repo of repos.values()) for (const data of repo.files.values()) blobs.set(sha256(data), data);
  const requests: RecordedRequest[] = [];
  let cdnUrl = '';
  let held: ServerResponse | undefined;
  const hub: Partial<FakeHub> & { requests: RecordedRequest[] } = { requests };

  const cdn = createServer((req, res) => {
    requests.push({ server: 'cdn', method: req.method!, path: req.url!, headers: req.headers });
    const data = blobs.get(req.url!.slice(1));
    if (data === undefined) return fail(res, 404, 'EntryNotFound');
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start >= data.length && range) return void res.writeHead(416).end();
    const body = data.subarray(start);
    res.writeHead(range ? 206 : 200, { 'content-length': body.length, ...(range ? { 'content-range': `bytes ${start}-${data.length - 1}/${data.length}` } : {}) });
    const cut = hub.cutNextCdnResponseAfter;
    if (cut !== undefined && req.method === 'GET') {
      // Send the first bytes and hold the connection until the test drops it (once the client
      // has written them, so the test does not depend on timing).
      hub.cutNextCdnResponseAfter = undefined;
      res.write(body.subarray(0, cut));
      held = res;
      return;
    }
    res.end(req.method === 'HEAD' ? undefined : body);
  });

  const server = createServer((req, res) => {
    requests.push({ server: 'hub', method: req.method!, path: req.url!, headers: req.headers });
    const path = req.url!.split('?')[0]!;
    const api = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/]+)$/.exec(path);
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    const repoId = api?.[1] ?? resolve?.[1];
    const repo = repoId === undefined ? undefined : repos.get(repoId);
    if (repo === undefined) return fail(res, 404, 'RepoNotFound');
    if (repo.token !== undefined && req.headers.authorization !== `Bearer ${repo.token}`) return fail(res, 401, 'GatedRepo');
    const revision = decodeURIComponent((api ?? resolve)![2]!);
    if (revision !== 'main' && revision !== repo.commit) return fail(res, 404, 'RevisionNotFound');
    const common = { 'x-repo-commit': repo.commit };
    if (api) {
      const body = JSON.stringify({ id: repoId, sha: repo.commit, siblings: [...repo.files.keys()].map((rfilename) => ({ rfilename })) });
      return void res.writeHead(200, { ...common, 'content-type': 'application/json' }).end(body);
    }
    const file = decodeURIComponent(resolve![3]!);
    const data = repo.files.get(file);
    if (data === undefined) return fail(res, 404, 'EntryNotFound');
    if (file.endsWith('.safetensors')) {
      const etag = sha256(data);
      return void res.writeHead(302, { ...common, location: `${cdnUrl}/${etag}`, 'x-linked-etag': `"${etag}"`, 'x-linked-size': data.length, etag: '"not-the-content-hash"' }).end();
    }
    res.writeHead(200, { ...common, etag: `W/"${gitBlobId(data)}"`, 'content-length': data.length });
    res.end(req.method === 'HEAD' ? undefined : data);
  });

  cdnUrl = await listen(cdn, options.cdnHost);
  const endpoint = await listen(server);
  return Object.assign(hub, {
    endpoint,
    dropHeldResponse: () => {
      held?.destroy();
      held = undefined;
    },
    close: async () => {
      await Promise.all([server, cdn].map((s) => new Promise((r) => { s.close(() => r(undefined)); s.closeAllConnections(); })));
    },
  }) as FakeHub;
}
