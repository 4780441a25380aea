/**
 * `serve`: an OpenAI-compatible HTTP server (/v1/models, /v1/completions,
 * /v1/chat/completions) over a model folder or a run, as `troupe serve` starts it.
 */
import { startServe } from './start-serve.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import type { RunningServer } from '../serve/server.js';

export type { RunningServer };

export interface ServeOptions {
  /** A model folder, a run folder (its newest checkpoint) or a hub id `Org/Name[@revision]`. */
  readonly model: string;
  /** Address to listen on (default 127.0.0.1). */
  readonly host?: string;
  /** Port (default 8000; 0 picks a free one, see `url`). */
  readonly port?: number;
  /** Served name of the base model (default the folder name, or the hub id). */
  readonly name?: string;
  /** Seed for requests that give none (default 0). */
  readonly seed?: number;
  /** How long a request waits for others to batch with, in ms (default 2). */
  readonly windowMs?: number;
  /** Kernels (default auto: native where built, else WebAssembly). */
  readonly backend?: BackendName;
  /** Aborted: the server stops accepting connections and closes once in-flight requests finish. */
  readonly signal?: AbortSignal;
}

/**
 * Starts serving and resolves once the server listens; `close()` lets in-flight requests finish.
 *
 * @example
 * ```ts
 * import { serve } from 'troupe';
 * const server = await serve({ model: 'runs/guess', port: 0 });
 * const reply = await fetch(`${server.url}/v1/models`);
 * await server.close();   // or: serve({ ..., signal }) and abort it
 * ```
 */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  options.signal?.throwIfAborted();
  const server = await startServe({
    dir: options.model,
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 8000,
    windowMs: options.windowMs ?? 2,
    seed: options.seed ?? 0,
    print: () => undefined,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.backend === undefined ? {} : { backend: options.backend }),
  });
  const signal = options.signal;
  if (signal) {
    // Aborted while the model loaded: close at once; later: on the abort.
    if (signal.aborted) await server.close();
    else signal.addEventListener('abort', () => void server.close(), { once: true });
  }
  return server;
}
