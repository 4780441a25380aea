/** A Tinker server on a tiny random model, a client of it, and one rank-4 training model, for the server's tests. */
import { createReferenceKernels } from '../../engine/kernels/reference.js';
import { TinkerClient, type TinkerTrainingModel } from '../../tinker/tinker-client.js';
import { makeTinyModelDir, type TinyModelDir } from '../tiny-model.test-helper.js';
import { startTinkerServer, type RunningTinkerServer, type TinkerServeOptions } from './tinker-server.js';

export interface TinkerTestServer {
  readonly folder: TinyModelDir;
  readonly server: RunningTinkerServer;
  readonly client: TinkerClient;
  /** A rank-4 LoRA model (seed 3) on the base 'tiny'. */
  readonly model: TinkerTrainingModel;
  close(): Promise<void>;
}

export async function startTinkerTestServer(options: Partial<TinkerServeOptions> = {}): Promise<TinkerTestServer> {
  const folder = makeTinyModelDir();
  const server = await startTinkerServer({ kernels: createReferenceKernels(), models: [{ name: 'tiny', dir: folder.dir }], port: 0, pollWaitMs: 200, log: () => {}, ...options });
  const client = await TinkerClient.connect({ baseUrl: server.url, apiKey: 'tml-test', maxRetries: 0, backoffMs: 10 });
  const model = await client.createLoraModel('tiny', { rank: 4, seed: 3 });
  return {
    folder,
    server,
    client,
    model,
    close: async () => {
      client.close();
      await server.close();
      folder.remove();
    },
  };
}

/** One raw HTTP call to a Tinker server's API (no redirects followed): status, headers, and the JSON body when there is one. */
export async function apiCall(server: { url: string }, method: string, route: string, body?: unknown): Promise<{ status: number; headers: Headers; json: any }> {
  const init: RequestInit = { method, redirect: 'manual', ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }) };
  const res = await fetch(`${server.url}/api/v1${route}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text === '' ? undefined : JSON.parse(text) };
}

/** The route of a checkpoint's admin action: `/training_runs/<id>/checkpoints/<kind>/<name>/<action>`. */
export function checkpointRoute(tinkerPath: string, action: string): string {
  const [, run, kind, name] = /^tinker:\/\/(.+)\/(weights|sampler_weights)\/([^/]+)$/.exec(tinkerPath)!;
  return `/training_runs/${encodeURIComponent(run!)}/checkpoints/${kind}/${encodeURIComponent(name!)}/${action}`;
}
