/**
 * A small TypeScript client of the Tinker wire protocol (no Python): JSON and protobuf
 * requests, futures polled through retrieve_future, retries with backoff.
 *
 *   const client = await TinkerClient.connect({ baseUrl: 'http://127.0.0.1:8000', apiKey: process.env.TINKER_API_KEY });
 *   const model = await client.createLoraModel('Qwen/Qwen3-0.6B', { rank: 8 });
 *   const out = await model.forwardBackward(datums, 'cross_entropy');
 *   await model.optimStep({ ...DEFAULT_ADAM, learning_rate: 1e-4 });
 *
 * Errors: 408 / 429 / 5xx and refused connections are retried (exponential backoff, up to
 * `maxRetries`), except a 408 from retrieve_future, which means the op is still running and
 * is polled again (without limit, or until `futureTimeoutMs`; `onWait` hears of every minute
 * of waiting); other 4xx and failed futures throw a TroupeError('policy') with the
 * server's message. Training ops of one model carry consecutive seq_ids and are submitted one
 * after another (each POST once the previous one is acknowledged), so several may be in flight
 * at once (pipelining) and every service runs them in call order.
 */
import { TroupeError } from '../util/errors.js';
import { RequestLimit } from './request-limit.js';
import { parseTinkerPath } from './tinker-path.js';
import { TinkerUnreachableError } from './tinker-unreachable-error.js';
import { decodeForwardBackwardOutput, decodeSampleResponse, encodeForwardBackwardRequest } from './tinker-proto.js';
import {
  API_PREFIX,
  PROTOBUF_CONTENT_TYPE,
  type AdamParams,
  type Datum,
  type ForwardBackwardOutput,
  type LoraConfigWire,
  type LossFnName,
  type SampleRequest,
  type SampleResponse,
} from './types.js';

export interface TinkerClientOptions {
  readonly baseUrl: string;
  /** Sent as X-API-Key; Tinker keys start with `tml-`. */
  readonly apiKey?: string;
  /** Retries of one HTTP request on 408/429/5xx/connection errors. Default 5. */
  readonly maxRetries?: number;
  /** First backoff delay (doubles per retry). Default 250 ms. */
  readonly backoffMs?: number;
  /** Most `asample` requests in flight at once, over all samplers of this client. Default 64. */
  readonly sampleConcurrency?: number;
  /**
   * Longest wait for one future (polls answered 408 or try_again), after which result() throws.
   * Default none: a first JAX compile on SkyRL tx can keep a future pending for many minutes.
   * Checked whenever a poll comes back, so a service that long-polls 300 s may overshoot it by that.
   */
  readonly futureTimeoutMs?: number;
  /** Hears `still waiting for <op> request <id> from <url> (N min)` after each full minute one future is pending. */
  readonly onWait?: (message: string) => void;
  /** The clock of those waits (tests step it). Default Date.now. */
  readonly now?: () => number;
}

type ResultKind = 'json' | 'forward_backward' | 'sample';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** What pollFuture answers while the op still runs. */
const PENDING = Symbol('pending');

export class TinkerClient {
  readonly baseUrl: string;
  readonly sessionId: string;
  private readonly options: TinkerClientOptions;
  private modelCounter = 0;
  private samplerCounter = 0;
  private heartbeat?: NodeJS.Timeout;
  /** Shared by every sampler of this client (request-limit.ts says why). */
  readonly sampleLimit: RequestLimit;

  private constructor(options: TinkerClientOptions, sessionId: string) {
    this.options = options;
    this.sampleLimit = new RequestLimit(options.sampleConcurrency ?? 64);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.sessionId = sessionId;
  }

  /** Fetches the client config, opens a session and keeps it alive (heartbeat every 10 s). */
  static async connect(options: TinkerClientOptions): Promise<TinkerClient> {
    const probe = new TinkerClient(options, '');
    await probe.post('/client/config', { sdk_version: 'troupe' });
    const { session_id } = (await probe.post('/create_session', { tags: ['troupe'], user_metadata: {}, sdk_version: 'troupe' })) as { session_id: string };
    const client = new TinkerClient(options, session_id);
    client.heartbeat = setInterval(() => {
      client.post('/session_heartbeat', { session_id }).catch(() => undefined);
    }, 10_000);
    client.heartbeat.unref();
    return client;
  }

  close(): void {
    clearInterval(this.heartbeat);
  }

  async capabilities(): Promise<Array<{ model_name: string; max_context_length: number | null }>> {
    return ((await this.request('GET', '/get_server_capabilities')) as { supported_models: Array<{ model_name: string; max_context_length: number | null }> }).supported_models;
  }

  async createLoraModel(baseModel: string, lora: LoraConfigWire): Promise<TinkerTrainingModel> {
    const id = await this.submit('/create_model', { session_id: this.sessionId, model_seq_id: this.modelCounter++, base_model: baseModel, lora_config: lora });
    const { model_id } = (await this.result(id, 'json', 'create_model')) as { model_id: string };
    return new TinkerTrainingModel(this, model_id);
  }

  /** A sampling session on a tinker:// path, or on the bare base model. */
  async createSampler(target: { modelPath?: string; baseModel?: string }): Promise<TinkerSampler> {
    const body = { session_id: this.sessionId, sampling_session_seq_id: this.samplerCounter++, ...(target.modelPath ? { model_path: target.modelPath } : {}), ...(target.baseModel ? { base_model: target.baseModel } : {}) };
    const { sampling_session_id } = (await this.post('/create_sampling_session', body)) as { sampling_session_id: string };
    return new TinkerSampler(this, sampling_session_id);
  }

  /**
   * delete_checkpoint of a tinker:// path (saved training weights or named sampler weights).
   * Resolves to false when the service has nothing there (already deleted), true otherwise.
   */
  async deleteCheckpoint(tinkerPath: string): Promise<boolean> {
    const { modelId, kind, name } = parseTinkerPath(tinkerPath);
    const raw = await this.fetchWithRetries(`/training_runs/${encodeURIComponent(modelId)}/checkpoints/${kind}/${encodeURIComponent(name)}`, { method: 'DELETE' }, { missingOk: true });
    return raw !== undefined;
  }

  /** POSTs a submit route and returns its request id. */
  async submit(route: string, body: unknown): Promise<string> {
    return ((await this.post(route, body)) as { request_id: string }).request_id;
  }

  async submitProto(route: string, bytes: Uint8Array): Promise<string> {
    const raw = await this.fetchWithRetries(route, { method: 'POST', headers: { 'Content-Type': PROTOBUF_CONTENT_TYPE }, body: bytes });
    return (JSON.parse(new TextDecoder().decode(raw.body)) as { request_id: string }).request_id;
  }

  /**
   * Polls retrieve_future until the result is ready; a failed future throws, and so does one
   * pending past `futureTimeoutMs`. `op` names the request in messages (default: `kind`).
   */
  async result(requestId: string, kind: ResultKind, op: string = kind): Promise<unknown> {
    const now = this.options.now ?? Date.now;
    const started = now();
    let minutesReported = 0;
    for (;;) {
      const answer = await this.pollFuture(requestId, kind);
      if (answer !== PENDING) return answer;
      const waitedMs = now() - started;
      const cap = this.options.futureTimeoutMs;
      if (cap !== undefined && waitedMs >= cap) {
        throw new TroupeError(
          'policy',
          `Tinker ${op} request ${requestId} is still pending after ${Number((waitedMs / 1000).toFixed(1))} s of waiting on ${this.baseUrl} (policy.tinker.future_timeout_s: ${cap / 1000}); if the service is only slow (a first compile can take many minutes), raise policy.tinker.future_timeout_s or remove it to wait without limit, else check the service at ${this.baseUrl}`,
        );
      }
      const minutes = Math.floor(waitedMs / 60_000);
      if (minutes > minutesReported) {
        minutesReported = minutes;
        this.options.onWait?.(`still waiting for ${op} request ${requestId} from ${this.baseUrl} (${minutes} min)`);
      }
    }
  }

  /** One retrieve_future: the result, PENDING while the op still runs, or a failed future's error. */
  private async pollFuture(requestId: string, kind: ResultKind): Promise<unknown> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (kind !== 'json') headers.Accept = PROTOBUF_CONTENT_TYPE;
    // A 408 here is the service's long poll running out while the op still runs (SkyRL tx
    // answers it after 300 s, e.g. during a first JAX compile): pending, as for try_again,
    // without spending the retries meant for failures.
    const raw = await this.fetchWithRetries('/retrieve_future', { method: 'POST', headers, body: JSON.stringify({ request_id: requestId }) }, { pendingOn408: true });
    if (raw === undefined) return PENDING;
    if (raw.contentType.includes(PROTOBUF_CONTENT_TYPE)) return kind === 'sample' ? decodeSampleResponse(raw.body) : decodeForwardBackwardOutput(raw.body);
    const json = JSON.parse(new TextDecoder().decode(raw.body)) as Record<string, unknown>;
    if (json.type === 'try_again') return PENDING;
    if (typeof json.error === 'string') throw new TroupeError('policy', `Tinker request ${requestId} failed (${String(json.category)} error): ${json.error}`);
    return json;
  }

  async post(route: string, body: unknown): Promise<unknown> {
    return this.request('POST', route, body);
  }

  private async request(method: 'GET' | 'POST', route: string, body?: unknown): Promise<unknown> {
    const raw = await this.fetchWithRetries(route, { method, headers: { 'Content-Type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return JSON.parse(new TextDecoder().decode(raw.body));
  }

  private async fetchWithRetries(route: string, init: RequestInit): Promise<{ body: Uint8Array; contentType: string }>;
  private async fetchWithRetries(route: string, init: RequestInit, options: { missingOk?: boolean; pendingOn408?: boolean }): Promise<{ body: Uint8Array; contentType: string } | undefined>;
  /** undefined: a 404 under missingOk, or a 408 under pendingOn408 (the op is still running). */
  private async fetchWithRetries(route: string, init: RequestInit, options: { missingOk?: boolean; pendingOn408?: boolean } = {}): Promise<{ body: Uint8Array; contentType: string } | undefined> {
    const url = `${this.baseUrl}${API_PREFIX}${route}`;
    const maxRetries = this.options.maxRetries ?? 5;
    const headers = { ...(init.headers as Record<string, string>), 'X-API-Key': this.options.apiKey ?? 'tml-troupe' };
    let lastProblem = '';
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      if (attempt > 0) await sleep((this.options.backoffMs ?? 250) * 2 ** (attempt - 1));
      let response: Response;
      try {
        response = await fetch(url, { ...init, headers });
      } catch (error) {
        lastProblem = `cannot reach ${url}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`;
        continue;
      }
      const body = new Uint8Array(await response.arrayBuffer());
      if (response.ok) return { body, contentType: response.headers.get('content-type') ?? '' };
      if (response.status === 404 && options.missingOk) return undefined;
      if (response.status === 408 && options.pendingOn408) return undefined;
      const text = new TextDecoder().decode(body);
      let message = text;
      try {
        const parsed = JSON.parse(text) as { error?: string; detail?: string };
        message = parsed.error ?? parsed.detail ?? text;
      } catch {
        // not JSON: keep the text
      }
      lastProblem = `${init.method} ${url} answered ${response.status}: ${message}`;
      if (response.status === 408 || response.status === 429 || response.status >= 500) continue;
      throw new TroupeError('policy', `Tinker server refused the request: ${lastProblem}`);
    }
    throw new TinkerUnreachableError(`Tinker server failed after ${maxRetries + 1} attempts: ${lastProblem}; check that the server at ${this.baseUrl} is running`, this.baseUrl);
  }
}

/**
 * One LoRA training model; its ops get consecutive seq_ids in call order, and each op's POST
 * goes out only after the service acknowledged the previous one (it answers with a future id
 * at once, so the ops still run back to back). Tinker runs a client's ops in seq_id order, but
 * SkyRL tx runs them in the order their requests arrived: three POSTs sent together can arrive
 * as optim_step, save_weights_for_sampler, forward_backward, which steps with no gradients and
 * samples with the old weights.
 */
export class TinkerTrainingModel {
  private seq = 0;
  private weightChanges = 0;
  /** The last op's submission, settled or not: the next one waits for it. */
  private submitted: Promise<unknown> = Promise.resolve();

  constructor(
    readonly client: TinkerClient,
    readonly modelId: string,
  ) {}

  /** Submits now (taking the next seq_id) and returns the pending result. */
  forwardBackward(data: readonly Datum[], lossFn: LossFnName, options: { config?: Record<string, number>; forwardOnly?: boolean } = {}): Promise<ForwardBackwardOutput> {
    const bytes = encodeForwardBackwardRequest({ model_id: this.modelId, seq_id: ++this.seq, data, loss_fn: lossFn, loss_fn_config: options.config ?? {}, forward_only: options.forwardOnly ?? false });
    return this.inOrder(() => this.client.submitProto('/forward_backward', bytes)).then((id) => this.client.result(id, 'forward_backward', options.forwardOnly ? 'forward' : 'forward_backward')) as Promise<ForwardBackwardOutput>;
  }

  /**
   * Optimizer steps and weight loads called so far. Ops run in call order, so a forward called
   * while this reads n computes with the weights after the n-th of them.
   */
  get weightVersion(): number {
    return this.weightChanges;
  }

  optimStep(adam: AdamParams): Promise<{ metrics?: Record<string, number> }> {
    this.weightChanges++;
    return this.op('/optim_step', { adam_params: adam }) as Promise<{ metrics?: Record<string, number> }>;
  }

  /** get_info: the model's base, LoRA rank and (on Troupe's server) `lora_alpha`. */
  async info(): Promise<Record<string, unknown>> {
    return (await this.client.post('/get_info', { model_id: this.modelId })) as Record<string, unknown>;
  }

  /** Saves training state (weights + Adam) under a name; resolves to its tinker:// path. */
  async saveWeights(name: string): Promise<string> {
    return ((await this.op('/save_weights', { path: name, overwrite: true })) as { path: string }).path;
  }

  /**
   * Loads saved training weights (and with `withOptimizer` the Adam state). Only a training
   * client's first request may be a load: the Tinker service and SkyRL tx answer any later one
   * with 400 ("LoadWeights is not permitted with seq_id N"), so this refuses it here, on every
   * service, before anything is sent.
   */
  async loadWeights(path: string, withOptimizer: boolean): Promise<void> {
    if (this.seq > 0) {
      throw new TroupeError('invariant', `internal invariant broken: load_weights of ${path} into training client ${this.modelId} after ${this.seq} request(s); Tinker services take a load only as a client's first request, so load into a fresh client (createLoraModel, then loadWeights)`);
    }
    this.weightChanges++;
    await this.op('/load_weights', { path, optimizer: withOptimizer });
  }

  /** unload_model: the service frees the client; its sampler sessions may go with it. */
  async unload(): Promise<void> {
    await this.client.result(await this.inOrder(() => this.client.submit('/unload_model', { model_id: this.modelId })), 'json', 'unload_model');
  }

  /** A frozen copy of the current weights: a sampling session id, or with `name` a tinker:// sampler_weights path. */
  async saveForSampler(name?: string): Promise<string> {
    const r = (await this.op('/save_weights_for_sampler', name === undefined ? { sampling_session_seq_id: 0 } : { path: name })) as { sampling_session_id?: string; path?: string };
    return r.sampling_session_id ?? r.path!;
  }

  private op(route: string, body: Record<string, unknown>): Promise<unknown> {
    const seq_id = ++this.seq;
    return this.inOrder(() => this.client.submit(route, { model_id: this.modelId, seq_id, ...body })).then((id) => this.client.result(id, 'json', route.slice(1)));
  }

  /** Submits once the previous op's submission has settled (acknowledged or failed). */
  private inOrder(send: () => Promise<string>): Promise<string> {
    const sent = this.submitted.then(send);
    this.submitted = sent.catch(() => undefined);
    return sent;
  }
}

export class TinkerSampler {
  private seq = 0;

  constructor(
    readonly client: TinkerClient,
    readonly samplingSessionId: string,
  ) {}

  async sample(request: Omit<SampleRequest, 'sampling_session_id' | 'seq_id'>): Promise<SampleResponse> {
    // seq_id is taken when the request goes out, so the ids still go out in order.
    return this.client.sampleLimit.run(async () => {
      const id = await this.client.submit('/asample', { ...request, sampling_session_id: this.samplingSessionId, seq_id: this.seq++ });
      return (await this.client.result(id, 'sample', 'asample')) as SampleResponse;
    });
  }
}
