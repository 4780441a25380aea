/**
 * The server behind `troupe serve` and `serve()`: the handler of open-handler.ts on a port,
 * the operating system's refusals to listen turned into one line that says what to change.
 *
 * ```ts
 * const server = await startServe({ model: 'models/tiny', host: '127.0.0.1', port: 0 });
 * const tinker = await startServe({ tinker: true, models: ['models/tiny'], host: '127.0.0.1', port: 0 });
 * ```
 */
import { listening } from '../serve/listening.js';
import { listenHandler } from '../serve/node-adapter.js';
import type { HandlerOptions } from './handler-options.js';
import { openOpenAIHandler, openTinkerHandler, type OpenedHandler } from './open-handler.js';
import type { FetchHandler } from '../serve/fetch-plumbing.js';

export interface RunningServer {
  /** e.g. http://127.0.0.1:8000 (OpenAI clients use `${url}/v1`; the Tinker SDK's base_url is `url`). */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections, lets in-flight requests finish, then frees the models. */
  close(): Promise<void>;
}

export type StartServeOptions = HandlerOptions & {
  readonly host: string;
  readonly port: number;
  /** Where the banner goes (default stdout; serve() passes none). */
  readonly print?: (text: string) => void;
};

export async function startServe(options: StartServeOptions): Promise<RunningServer> {
  const opened: OpenedHandler<FetchHandler> = options.tinker === true ? await openTinkerHandler(options) : await openOpenAIHandler(options);
  let listener;
  try {
    // The Tinker server cuts lingering connections sooner: its long polls would hold close() for 10 s.
    listener = await listening(() => listenHandler(opened.handler, options.host, options.port, options.tinker === true ? 2000 : 5000), options.host, options.port);
  } catch (error) {
    await opened.handler.close(); // a sampling thread, if any, stops and gives its threads back
    throw error;
  }
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  print(opened.describe(listener.url));
  return { url: listener.url, port: listener.port, close: listener.close };
}
