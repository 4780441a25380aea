/**
 * `serve`: `createHandler`'s routes on a port (node:http): the OpenAI-compatible API
 * (/v1/models, /v1/completions, /v1/chat/completions) over a model folder or a run, as
 * `troupe serve` starts it, or with `tinker: true` the Tinker API, as `troupe serve --tinker`.
 */
import type { HandlerOptions } from './handler-options.js';
import { startServe, type RunningServer } from './start-serve.js';

export type { RunningServer };

/** Where to listen, and a signal that closes the server. */
export interface ListenOptions {
  /** Address to listen on (default 127.0.0.1). */
  readonly host?: string;
  /** Port (default 8000; 0 picks a free one, see `url`). */
  readonly port?: number;
  /** Aborted: the server stops accepting connections and closes once in-flight requests finish. */
  readonly signal?: AbortSignal;
}

/** The options of createHandler, plus where to listen. */
export type ServeOptions = HandlerOptions & ListenOptions;

/**
 * Starts serving and resolves once the server listens; `close()` lets in-flight requests finish.
 *
 * @example
 * ```ts
 * import { serve } from 'troupe';
 * const server = await serve({ model: 'runs/guess', port: 0 });
 * const reply = await fetch(`${server.url}/v1/models`);
 * await server.close();   // or: serve({ ..., signal }) and abort it
 * const tinker = await serve({ tinker: true, models: ['models/tiny'], port: 0 });
 * ```
 */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  options.signal?.throwIfAborted();
  const server = await startServe({ ...options, host: options.host ?? '127.0.0.1', port: options.port ?? 8000, print: () => undefined });
  const signal = options.signal;
  if (signal) {
    // Aborted while the model loaded: close at once; later: on the abort.
    if (signal.aborted) await server.close();
    else signal.addEventListener('abort', () => void server.close(), { once: true });
  }
  return server;
}
