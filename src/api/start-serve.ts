/**
 * The OpenAI-compatible server behind `troupe serve` and `serve()`: a model folder, a run
 * folder (its newest checkpoint, adapters as <run>:<role>) or a hub id, on a port.
 *
 * ```ts
 * const server = await startServe({ dir: 'models/tiny', host: '127.0.0.1', port: 0, windowMs: 2, seed: 0 });
 * ```
 */
import { resolveModel } from '../engine/hub/resolve-model.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import { getKernels } from '../engine/kernels/get-kernels.js';
import { listening } from '../serve/listening.js';
import { loadServedModels } from '../serve/load-served-models.js';
import { startServer, type RunningServer } from '../serve/server.js';
import type { RemoteSimulationOptions } from '../serve/tinker/simulated-remote.js';

export interface ServeRunOptions {
  readonly dir: string;
  readonly host: string;
  readonly port: number;
  /** Served base name; default the folder's name. */
  readonly name?: string;
  readonly windowMs: number;
  readonly seed: number;
  /** Where save_weights checkpoints are also written, so a restarted server loads them (default: memory only). */
  readonly stateDir?: string;
  /** LoRA alpha of every adapter (default 32; the API has no field for it). */
  readonly loraAlpha?: number;
  /** Kernels (default auto). */
  readonly backend?: BackendName;
  /** A simulated remote GPU service (src/serve/tinker/simulated-remote.ts); default: answer as fast as this machine computes. */
  readonly simulate?: RemoteSimulationOptions;
  /** Run asample requests that wait together as one batch (TinkerServiceOptions.batchSampling). */
  readonly batchSampling?: boolean;
  /** Largest request body in bytes (default 8 MiB; a bigger one is answered 413). */
  readonly maxBodyBytes?: number;
  readonly print?: (text: string) => void;
}

export async function startServe(options: ServeRunOptions): Promise<RunningServer> {
  const dir = await resolveModel(options.dir);
  // A hub id is served under its own name, as vLLM does (`Qwen/Qwen3-0.6B`), not its snapshot folder's.
  const name = options.name ?? (dir === options.dir ? undefined : options.dir);
  const models = loadServedModels(await getKernels(options.backend), dir, name === undefined ? {} : { name });
  const server = await listening(() => startServer({ models, host: options.host, port: options.port, windowMs: options.windowMs, seed: options.seed, maxBodyBytes: options.maxBodyBytes }), options.host, options.port);
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  const lines = models.map((m) => `  ${m.name.padEnd(24)} ${m.adapter === undefined ? 'model  ' : 'adapter'} ${m.root}  (chat template: ${m.chatTemplate.source})`);
  print(`troupe serve: ${server.url}/v1\n${lines.join('\n')}\n`);
  return server;
}
