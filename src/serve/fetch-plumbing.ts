/**
 * The Fetch-API plumbing both servers share (the OpenAI one in server.ts and the Tinker one in
 * tinker/): a handler is `fetch(Request) => Promise<Response>`, so it mounts in any server that
 * speaks the Fetch API (node-adapter.ts puts it on a node:http port).
 *
 *   const handler = guardedHandler((request) => route(request), (error) => ({ status: 400, body: { error: String(error) } }));
 *   const response = await handler.fetch(new Request('http://local/health'));
 *   await handler.close();
 */

/** What createHandler resolves to: requests in, responses out; close() once done with it. */
export interface FetchHandler {
  /** Answers one request; a refusal is a JSON error response, never a rejection. */
  fetch(request: Request): Promise<Response>;
  /** Refuses new requests (503), waits for the ones in flight, then frees what the handler holds. */
  close(): Promise<void>;
}

/** A JSON response with its Content-Length (node's adapter sends it as is, as sendJson did). */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  return new Response(bytes, { status, headers: { 'Content-Type': 'application/json', 'Content-Length': String(bytes.length), ...headers } });
}

/**
 * The request body, refused with `tooLarge()` (e.g. a 413) once it passes `limit` bytes. The
 * rest of an over-long body is read and dropped rather than the stream cancelled, so the client,
 * still sending, gets the 413 instead of a connection reset.
 */
export async function readRequestBody(request: Request, limit: number, tooLarge: () => Error): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      void drain(reader);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    while (!(await reader.read()).done);
  } catch {
    // The client went away while its over-long body was being dropped: nothing left to answer.
  }
}

/**
 * A handler whose route function may throw: `refusal` turns the error into the status and JSON
 * body to answer (and logs what is the server's fault). close() waits for the requests in
 * flight (until their response is returned; a streamed body finishes on its own), then runs
 * `dispose`.
 */
export function guardedHandler(
  route: (request: Request) => Promise<Response>,
  refusal: (error: unknown, request: Request) => { status: number; body: unknown; headers?: Record<string, string> },
  options: { closedBody?: unknown; dispose?: () => void } = {},
): FetchHandler {
  let inFlight = 0;
  let closing: Promise<void> | undefined;
  let idle: (() => void) | undefined;
  return {
    async fetch(request) {
      if (closing !== undefined) return jsonResponse(503, options.closedBody ?? { error: 'the server is shutting down' }, { Connection: 'close' });
      inFlight += 1;
      try {
        return await route(request);
      } catch (error) {
        const { status, body, headers } = refusal(error, request);
        return jsonResponse(status, body, headers);
      } finally {
        inFlight -= 1;
        if (inFlight === 0) idle?.();
      }
    },
    close() {
      closing ??= (async () => {
        if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
        options.dispose?.();
      })();
      return closing;
    },
  };
}
