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
