/**
 * A Fetch-API handler (fetch-plumbing.ts) on a node:http port: what `serve()`, `troupe serve`
 * and the tests listen with. Node's request becomes a `Request` (its body streamed), and the
 * `Response` is written back chunk by chunk, waiting for the socket to drain, so a streamed
 * answer (Server-Sent Events, a checkpoint archive) reaches the client as it is produced.
 *
 *   const listener = await listenHandler(handler, '127.0.0.1', 0);
 *   // listener.url === 'http://127.0.0.1:<port>'
 *   await listener.close();   // stops accepting, lets in-flight requests finish, closes the handler
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { FetchHandler } from './fetch-plumbing.js';

export interface ListeningHandler {
  /** e.g. http://127.0.0.1:8000 */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections, lets in-flight requests finish (cut after `forceMs`), then closes the handler. */
  close(): Promise<void>;
}

/** Listens on host:port (0 = a free port) with `handler` answering every request. */
export async function listenHandler(handler: FetchHandler, host: string, port: number, forceMs = 5000): Promise<ListeningHandler> {
  const server = createServer((req, res) => void answer(handler, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    port: address.port,
    close: async () => {
      await closeGracefully(server, forceMs);
      await handler.close();
    },
  };
}

/** Node's request as a Fetch `Request`: the same method, path, headers and (streamed) body. */
export function toRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  // The path is appended, not resolved against a base: a request line of `//host/x` stays a path.
  const path = (req.url ?? '/').startsWith('/') ? (req.url ?? '/') : `/${req.url ?? ''}`;
  const url = new URL(`http://localhost${path}`);
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

/** The path and query of a request, as logs show it. */
export function pathOf(request: Request): string {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
}

async function answer(handler: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let response: Response;
  try {
    response = await handler.fetch(toRequest(req));
  } catch (error) {
    // Only a request node accepted but the Fetch API cannot express (a malformed URL) lands here.
    const text = JSON.stringify({ error: { message: `unreadable request: ${error instanceof Error ? error.message : String(error)}`, type: 'invalid_request_error', param: null, code: null } });
    res.writeHead(400, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  // A client that went away stops the stream (its source sees cancel and drops the rest).
  res.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
    }
    res.end();
  } catch {
    // The body failed after its headers went out: cut the reply, the client sees it incomplete.
    res.destroy();
  }
}

/**
 * Stops accepting connections and resolves once in-flight requests are done. Idle
 * keep-alive sockets would otherwise hold close() open, and after `forceMs` every
 * connection is cut.
 */
function closeGracefully(server: Server, forceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), forceMs).unref();
  });
}
