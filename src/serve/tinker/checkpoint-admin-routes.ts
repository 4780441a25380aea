/**
 * The checkpoint-admin routes of the SDK's RestClient, under
 * training_runs/<model_id>/checkpoints/<weights|sampler_weights>/<name>/:
 *
 *   POST   .../publish           publish_checkpoint_from_tinker_path: the listing shows public: true
 *   DELETE .../publish           unpublish_checkpoint_from_tinker_path: public: false
 *   PUT    .../ttl               set_checkpoint_ttl_from_tinker_path, body {"ttl_seconds": N | null}:
 *                                expires N seconds from now (expires_at), or never
 *   GET    .../archive           get_checkpoint_archive_url_from_tinker_path: a 302 to .../archive/download
 *                                with an Expires header (the SDK turns both into CheckpointArchiveUrlResponse)
 *   GET    .../archive/download  the checkpoint as a tar of its PEFT adapter (checkpoint-archive.ts)
 *
 * The server accepts any API key, so there is one user and it owns every run: no request is
 * refused as another owner's. Publishing an already public checkpoint (or unpublishing a private
 * one) succeeds: the SDK retries Tinker's 409 for minutes, which helps no local script.
 * Publish and ttl of training weights survive a restart with --state-dir (checkpoint-flags.ts);
 * named sampler weights live in memory like the snapshots themselves.
 */
import { API_PREFIX } from '../../tinker/types.js';
import { ustarChunks } from '../../util/ustar.js';
import { jsonResponse } from '../fetch-plumbing.js';
import { checkpointArchiveFiles } from './checkpoint-archive.js';
import { ttlSeconds } from './check-training-requests.js';
import { knownRun } from './read-routes.js';
import { pathPart, type Body } from './request-fields.js';
import { badField, TinkerApiError } from './tinker-api-error.js';
import type { TinkerService } from './tinker-service.js';
import { checkpointJson } from './training-runs.js';

/** How long the archive URL is said to be valid (the SDK assumes 15 minutes when no Expires comes). */
const ARCHIVE_URL_VALID_MS = 15 * 60 * 1000;

const ADMIN_ROUTE = /^\/training_runs\/([^/]+)\/checkpoints\/([^/]+)\/([^/]+)\/(publish|ttl|archive|archive\/download)$/;

export interface AdminRequest {
  readonly service: TinkerService;
  readonly req: Request;
  /** The path under /api/v1. */
  readonly route: string;
  /** The request's JSON object body (read only when a route needs one). */
  readonly readJson: () => Promise<Body>;
}

/** The answer when `route` is a checkpoint-admin route; undefined when it is not one. */
export async function serveCheckpointAdmin(request: AdminRequest): Promise<Response | undefined> {
  const match = ADMIN_ROUTE.exec(request.route);
  if (!match) return undefined;
  const [, runPart, kindPart, namePart, action] = match as unknown as [string, string, string, string, string];
  const { service, req } = request;
  const run = pathPart(runPart);
  const kind = pathPart(kindPart);
  if (kind !== 'weights' && kind !== 'sampler_weights') throw new TinkerApiError(404, `no checkpoint kind ${JSON.stringify(kind.slice(0, 40))}; checkpoint ids are weights/<name> or sampler_weights/<name>`);
  knownRun(service, run);
  const path = `tinker://${run}/${kind}/${pathPart(namePart)}`;
  const allowed = action === 'publish' ? ['POST', 'DELETE'] : action === 'ttl' ? ['PUT'] : ['GET'];
  if (!allowed.includes(req.method)) throw new TinkerApiError(405, `${req.method} is not served on .../${action}; use ${allowed.join(' or ')}`);
  if (action === 'publish') return jsonResponse(200, checkpointJson(service.store.updateCheckpoint(path, { public: req.method === 'POST' })));
  if (action === 'ttl') {
    const ttl = checkTtlBody(await request.readJson());
    return jsonResponse(200, checkpointJson(service.store.updateCheckpoint(path, { expiresAt: ttl === undefined ? null : new Date(service.now() + ttl * 1000) })));
  }
  if (action === 'archive') return redirectToDownload(request, path);
  return streamArchive(service, path);
}

/** `{"ttl_seconds": N | null}`; the key must be there (null removes the expiry). */
function checkTtlBody(body: Body): number | undefined {
  if (!('ttl_seconds' in body)) throw badField('ttl_seconds', 'missing; send {"ttl_seconds": <whole seconds, at least 1>} to set an expiry or {"ttl_seconds": null} to remove it');
  try {
    return ttlSeconds(body);
  } catch (error) {
    throw error instanceof TinkerApiError ? new TinkerApiError(400, `${error.message}; send a whole number of seconds, or null to remove the expiry`) : error;
  }
}

/** The 302 the SDK expects: Location is the download route, Expires when the URL is said to lapse. */
function redirectToDownload(request: AdminRequest, path: string): Response {
  const { service, req } = request;
  service.store.checkpointWeights(path); // a 404 now rather than from the download
  const host = req.headers.get('host');
  if (host === null) throw new TinkerApiError(400, 'the request has no Host header, so no download URL can be made; send one (HTTP/1.1 clients do)');
  const location = `http://${host}${API_PREFIX}${request.route}/download`;
  return new Response(null, { status: 302, headers: { Location: location, Expires: new Date(service.now() + ARCHIVE_URL_VALID_MS).toUTCString(), 'Content-Length': '0' } });
}

/**
 * The tar, handed out block by block as the client reads (a pull stream). The adapter's files
 * are built in memory first (an adapter is a few MB at most: every server-held adapter is
 * charged to --max-adapter-bytes), so only the wire is streamed.
 */
function streamArchive(service: TinkerService, path: string): Response {
  const { snapshot, base, record } = service.store.checkpointWeights(path);
  const files = checkpointArchiveFiles(snapshot, base.model.config, record);
  const chunks = [...ustarChunks(files)];
  const length = chunks.reduce((sum, c) => sum + c.length, 0);
  const filename = `${path.slice('tinker://'.length).replaceAll('/', '_').replace(/[^\w.-]/g, '_')}.tar`;
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => {
      if (next < chunks.length) controller.enqueue(chunks[next++]!);
      else controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'application/x-tar', 'Content-Length': String(length), 'Content-Disposition': `attachment; filename="${filename}"` } });
}
