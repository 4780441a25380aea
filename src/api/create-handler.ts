/**
 * `createHandler`: the routes of `troupe serve` (or `troupe serve --tinker`) as a Fetch-API
 * handler, so any server that speaks `Request`/`Response` can mount them: node:http through
 * an adapter, Hono, Bun, Deno, an edge runtime. `serve()` is this handler on a port.
 */
import type { FetchHandler } from '../serve/fetch-plumbing.js';
import type { HandlerOptions } from './handler-options.js';
import { openOpenAIHandler, openTinkerHandler } from './open-handler.js';

/** Requests in, responses out; `close()` refuses new requests (503), waits for those in flight and frees the models. */
export interface TroupeHandler {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Loads the models and resolves to the handler. Every refusal is a typed JSON error response
 * (OpenAI's `{error: {message, type, param, code}}`, or Tinker's `{error, category, detail}`);
 * `fetch` itself does not reject.
 *
 * @example
 * ```ts
 * import { createHandler } from 'troupe';
 * const handler = await createHandler({ model: 'runs/guess' });
 * const reply = await handler.fetch(new Request('http://local/v1/models'));
 * // Hono: app.all('/*', (c) => handler.fetch(c.req.raw)); Bun: Bun.serve({ fetch: handler.fetch })
 * await handler.close();
 * ```
 */
export async function createHandler(options: HandlerOptions): Promise<TroupeHandler> {
  const { handler } = options.tinker === true ? await openTinkerHandler(options) : await openOpenAIHandler(options);
  return publicHandler(handler);
}

/** Only fetch and close: what the handler holds inside (the Tinker service, batch counters) stays internal. */
export function publicHandler(handler: FetchHandler): TroupeHandler {
  return { fetch: (request) => handler.fetch(request), close: () => handler.close() };
}
