/**
 * The node:http plumbing both servers share (the OpenAI one in server.ts and the Tinker one
 * in tinker/): JSON replies, listening, and a close that lets in-flight requests finish.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** Listens on host:port (0 = a free port) and resolves to the server's base URL. */
export async function listen(server: Server, host: string, port: number): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `http://${shown}:${address.port}`, port: address.port };
}

/**
 * Stops accepting connections and resolves once in-flight requests are done. Idle
 * keep-alive sockets would otherwise hold close() open, and after `forceMs` every
 * connection is cut.
 */
export function closeGracefully(server: Server, forceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), forceMs).unref();
  });
}

/**
 * The request body, refused with `tooLarge()` (e.g. a 413) once it passes `limit` bytes. The
 * rest of an over-long body is read and dropped rather than the connection cut, so the client,
 * still sending, gets the 413 instead of a connection reset (node's server.requestTimeout bounds
 * how long that may take).
 */
export function readBody(req: IncomingMessage, limit: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size > limit) return;
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * An HTTP server whose handler may throw: `refusal` turns the error into the status and JSON
 * body to answer (and logs what is the server's fault); a reply already under way is cut.
 */
export function createJsonServer(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  refusal: (error: unknown, req: IncomingMessage) => { status: number; body: unknown },
): Server {
  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const { status, body } = refusal(error, req);
      if (res.headersSent) res.destroy();
      else sendJson(res, status, body);
    });
  });
}
