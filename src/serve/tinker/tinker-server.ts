/**
 * Troupe's Tinker server: the Tinker API (routes of SDK 0.25.0, under /api/v1) over the
 * embedded engine, so the official Tinker SDK, and Troupe's own `policy.kind: tinker`, train
 * LoRA adapters and sample on CPU.
 *
 *   const server = await startTinkerServer({ kernels, models: [{ name: 'tiny', dir: 'models/tiny' }], port: 0 });
 *   // TINKER_BASE_URL=server.url TINKER_API_KEY=tml-local python my_tinker_script.py
 *   await server.close();
 *
 *   const handler = await createTinkerHandler({ kernels, models });   // mount handler.fetch in any server
 *
 * Submit routes answer `{request_id}`; retrieve_future long-polls (up to `pollWaitMs`) and
 * then answers try_again. Any API key is accepted (the server is meant for loopback use).
 */
import { decodeForwardBackwardRequest, encodeForwardBackwardOutput, encodeSampleResponse } from '../../tinker/tinker-proto.js';
import { API_PREFIX, PROTOBUF_CONTENT_TYPE, type ClientConfig, type ForwardBackwardOutput, type ForwardBackwardRequest, type SampleResponse } from '../../tinker/types.js';
import { guardedHandler, jsonResponse, readRequestBody, type FetchHandler } from '../fetch-plumbing.js';
import { listenHandler, pathOf } from '../node-adapter.js';
import { TroupeError } from '../../util/errors.js';
import { serveCheckpointAdmin } from './checkpoint-admin-routes.js';
import { asApiError } from './future-queue.js';
import { LIMIT_FLAGS } from './limits.js';
import { listSessions, listTrainingRuns, listUserCheckpoints, trainingRunRoute } from './read-routes.js';
import { parseTinker, pathPart } from './request-fields.js';
import { retrieveFutureBody } from './route-bodies.js';
import { TinkerApiError } from './tinker-api-error.js';
import { SamplerThread } from './sampler-thread.js';
import { TinkerService, type TinkerServiceOptions } from './tinker-service.js';
import { simulatedLane, SimulatedRemote, type RemoteSimulationOptions } from './simulated-remote.js';

export interface TinkerHandlerOptions extends Omit<TinkerServiceOptions, 'samplerThread'> {
  /** Sample on a thread of its own (`--sampler-thread`, sampler-thread.ts). */
  readonly samplerThread?: boolean;
  /** How long retrieve_future waits for a pending result before try_again. Default 10 s (the SDK's poll timeout is 45 s). */
  readonly pollWaitMs?: number;
  /** Where server errors (5xx) are reported. Default: stderr. */
  readonly log?: (line: string) => void;
  /** Simulate a remote GPU service: latency per request, service time per token (simulated-remote.ts). */
  readonly simulate?: RemoteSimulationOptions;
}

export interface TinkerServeOptions extends TinkerHandlerOptions {
  readonly host?: string;
  /** Default 8000; 0 picks a free port. */
  readonly port?: number;
}

/** The handler and the service behind it (its sessions, store and sampling thread). */
export interface TinkerHandler extends FetchHandler {
  readonly service: TinkerService;
}

export interface RunningTinkerServer {
  /** e.g. http://127.0.0.1:8000 (the SDK's base_url). */
  readonly url: string;
  readonly port: number;
  readonly service: TinkerService;
  close(): Promise<void>;
}

const CLIENT_CONFIG: ClientConfig = {
  use_pyqwest_transport: false,
  proto_compress_fwdbwd: false,
  parallel_fwdbwd_chunks: true,
  fwdbwd_max_chunk_len: 1024,
  create_model_via_load_weights: false,
  pjwt_auth_enabled: false,
};

type Body = Record<string, unknown>;
type Handler = (body: Body, raw: Uint8Array, req: Request) => unknown;
type GetHandler = (rest: string, query: URLSearchParams) => unknown;

/** `<model_id>/checkpoints/<checkpoint_id>` of a DELETE training_runs/ route (checkpoint ids hold a slash). */
function deleteCheckpoint(service: TinkerService, rest: string): unknown {
  const match = /^([^/]+)\/checkpoints\/(.+)$/.exec(rest);
  if (!match) throw new TinkerApiError(404, `no route DELETE training_runs/${rest}; expected training_runs/<model_id>/checkpoints/<weights|sampler_weights>/<name>`);
  return service.store.deleteCheckpoint(pathPart(match[1]!), match[2]!.split('/').map(pathPart).join('/'));
}

/** The protobuf body of forward_backward, or a 400 saying why it cannot be read. */
function decodeProtoBody(raw: Uint8Array): ForwardBackwardRequest {
  try {
    return decodeForwardBackwardRequest(raw);
  } catch (error) {
    if (error instanceof TroupeError) throw new TinkerApiError(400, error.message);
    throw new TinkerApiError(400, `the forward_backward body is not a readable tinker_public.ForwardBackwardRequest (${error instanceof Error ? error.message : String(error)})`);
  }
}

function routes(service: TinkerService): { post: Record<string, Handler>; get: Record<string, GetHandler> } {
  const future = (id: string) => ({ request_id: id });
  return {
    post: {
      '/client/config': () => CLIENT_CONFIG,
      '/client/dynamic_config': () => ({ refresh_interval_sec: 300 }),
      '/create_session': () => service.createSession(),
      '/session_heartbeat': (b) => service.heartbeat(b),
      '/telemetry': () => ({ status: 'accepted' }),
      '/create_model': (b) => future(service.createModel(b)),
      '/get_info': (b) => service.getInfo(b),
      '/unload_model': (b) => future(service.unloadModel(b)),
      '/forward_backward': (_b, raw, req) => {
        const encoding = req.headers.get('content-encoding');
        if ((encoding ?? 'identity') !== 'identity') {
          throw new TinkerApiError(415, `Content-Encoding ${encoding} is not supported (client config sets proto_compress_fwdbwd: false); send the protobuf body uncompressed`);
        }
        const type = req.headers.get('content-type');
        if (!(type ?? '').includes(PROTOBUF_CONTENT_TYPE)) {
          throw new TinkerApiError(415, `forward_backward takes a ${PROTOBUF_CONTENT_TYPE} body (tinker_public.ForwardBackwardRequest), got ${type ?? 'no Content-Type'}`);
        }
        return future(service.forwardBackward(decodeProtoBody(raw)));
      },
      '/optim_step': (b) => future(service.optimStep(b)),
      '/save_weights': (b) => future(service.saveWeights(b)),
      '/save_weights_for_sampler': (b) => future(service.saveWeightsForSampler(b)),
      '/load_weights': (b) => future(service.loadWeights(b)),
      '/weights_info': (b) => service.store.weightsInfo(b),
      '/create_sampling_session': (b) => service.createSamplingSession(b),
      '/asample': (b) => future(service.asample(b)),
    },
    get: {
      '/healthz': () => ({ status: 'ok' }),
      '/get_server_capabilities': () => service.capabilities(),
      '/samplers/': (id) => service.store.getSampler(pathPart(id)),
      '/sessions/': (id) => service.getSession(pathPart(id)),
      '/sessions': (_r, query) => listSessions(service, query),
      '/training_runs/': (rest) => trainingRunRoute(service, rest),
      '/training_runs': (_r, query) => listTrainingRuns(service, query),
      '/checkpoints': (_r, query) => listUserCheckpoints(service, query),
    },
  };
}

/** A request's JSON object body ({} when empty or not `json`), or a 400/413 saying what is wrong with it. */
async function readJsonBody(req: Request, limit: number, json = true): Promise<{ raw: Uint8Array; body: Body }> {
  const raw = await readRequestBody(req, limit, () => new TinkerApiError(413, `request body exceeds ${limit} bytes (${LIMIT_FLAGS.maxBodyBytes}); send smaller chunks`));
  if (raw.length === 0 || !json) return { raw, body: {} };
  let body: Body;
  try {
    body = JSON.parse(new TextDecoder().decode(raw)) as Body;
  } catch (error) {
    throw new TinkerApiError(400, `the request body is not valid JSON (${(error as Error).message})`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new TinkerApiError(400, 'the request body must be a JSON object');
  return { raw, body };
}

/** A finished future as the SDK reads it: protobuf when asked for (and possible), JSON otherwise. */
function futureResult(value: unknown, wantsProto: boolean): Response {
  const tagged = value as { proto?: 'forward_backward' | 'sample'; value?: unknown };
  if (tagged.proto === undefined) return jsonResponse(200, value);
  if (wantsProto) {
    const bytes = tagged.proto === 'sample' ? encodeSampleResponse(tagged.value as SampleResponse) : encodeForwardBackwardOutput(tagged.value as ForwardBackwardOutput);
    return new Response(bytes, { status: 200, headers: { 'Content-Type': PROTOBUF_CONTENT_TYPE, 'Content-Length': String(bytes.length) } });
  }
  // JSON for clients that do not ask for protobuf: typed arrays become plain lists.
  return jsonResponse(200, JSON.parse(JSON.stringify(tagged.value, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Float32Array) : v))));
}

/** The server on a port: the handler behind node:http. */
export async function startTinkerServer(options: TinkerServeOptions): Promise<RunningTinkerServer> {
  const handler = await createTinkerHandler(options);
  try {
    const { url, port, close } = await listenHandler(handler, options.host ?? '127.0.0.1', options.port ?? 8000, 2000);
    return { url, port, service: handler.service, close };
  } catch (error) {
    await handler.close(); // the sampling thread, if any, stops and gives its threads back
    throw error;
  }
}

export async function createTinkerHandler(options: TinkerHandlerOptions): Promise<TinkerHandler> {
  const samplerThread = options.samplerThread ? await SamplerThread.start(options.kernels, { batch: options.batchSampling ?? false }) : undefined;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const service = new TinkerService({ ...options, samplerThread, log });
  const table = routes(service);
  const pollWaitMs = options.pollWaitMs ?? 10_000;
  const sim = options.simulate === undefined ? undefined : new SimulatedRemote(options.simulate);

  const route = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const path = url.pathname;
    service.store.sweepExpired();
    if (sim) await sim.roundTrip();
    if (path === '/health' || path === `${API_PREFIX}/healthz`) return jsonResponse(200, { status: 'ok' });
    if (!path.startsWith(`${API_PREFIX}/`)) throw new TinkerApiError(404, `no route ${req.method} ${path}; the Tinker API lives under ${API_PREFIX}/`);
    const under = path.slice(API_PREFIX.length);
    const readJson = async () => (await readJsonBody(req, service.limits.maxBodyBytes)).body;
    const admin = await serveCheckpointAdmin({ service, req, route: under, readJson });
    if (admin !== undefined) return admin;
    if (req.method === 'DELETE') {
      if (!under.startsWith('/training_runs/')) throw new TinkerApiError(404, `no route DELETE ${path}; DELETE serves ${API_PREFIX}/training_runs/<model_id>/checkpoints/<checkpoint_id>`);
      return jsonResponse(200, deleteCheckpoint(service, under.slice('/training_runs/'.length)));
    }
    if (req.method === 'GET') {
      const prefix = Object.keys(table.get).find((p) => (p.endsWith('/') ? under.startsWith(p) && under.length > p.length : under === p));
      if (prefix === undefined) throw new TinkerApiError(404, `no route GET ${path}`);
      return jsonResponse(200, table.get[prefix]!(under.slice(prefix.length), url.searchParams));
    }
    const handler = req.method === 'POST' ? table.post[under] : undefined;
    if (handler === undefined && !(req.method === 'POST' && under === '/retrieve_future')) throw new TinkerApiError(404, `no route ${req.method} ${path}; POST routes: ${[...Object.keys(table.post), '/retrieve_future'].join(', ')}`);
    const { raw, body } = await readJsonBody(req, service.limits.maxBodyBytes, under !== '/forward_backward');
    if (handler !== undefined) {
      const answer = handler(body, raw, req);
      if (sim && typeof (answer as { request_id?: unknown }).request_id === 'string') sim.admit((answer as { request_id: string }).request_id, simulatedLane(under, body, raw));
      return jsonResponse(200, answer);
    }
    const id = parseTinker(retrieveFutureBody, body).request_id;
    const answer = await service.queue.retrieve(id, pollWaitMs);
    if (answer === undefined) throw new TinkerApiError(404, `unknown request_id ${JSON.stringify(id)} (a result is kept 5 minutes after it is ready)`);
    if (answer.state === 'pending') return jsonResponse(200, { type: 'try_again', request_id: id, queue_state: 'active' });
    if (answer.state === 'failed') return jsonResponse(200, { error: answer.error.message, category: answer.error.category });
    if (sim) await sim.hold(id, answer.value);
    return futureResult(answer.value, (req.headers.get('accept') ?? '').includes(PROTOBUF_CONTENT_TYPE));
  };

  const handler = guardedHandler(
    route,
    (error, req) => {
      const apiError = asApiError(error);
      if (apiError.status >= 500) log(`troupe serve --tinker: ${req.method} ${pathOf(req)} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return { status: apiError.status, body: apiError.toBody() };
    },
    { closedBody: new TinkerApiError(503, 'the server is shutting down; retry against another instance').toBody(), dispose: () => service.dispose() },
  );
  return { fetch: handler.fetch, close: handler.close, service };
}
