/**
 * Test helper of the Tinker client tests: a stand-in service whose sample futures stay pending
 * for the first `pending` polls (each answered 408, the long poll running out, or with
 * `tryAgain` every other one `{type: 'try_again'}`); after that each future answers at once.
 * `onPoll` runs on each poll. Every asample gets its own request id (r1, r2, ...) and its
 * num_samples sequences of the one token 7; get_server_capabilities lists the base model `m`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowTinkerService {
  readonly url: string;
  /** retrieve_future calls so far. */
  polls(): number;
  close(): Promise<unknown>;
}

export async function startSlowTinkerService(pending: number, options: { tryAgain?: boolean; onPoll?: () => void } = {}): Promise<SlowTinkerService> {
  let polls = 0;
  /** num_samples of each asample request, by request id. */
  const samplesOf = new Map<string, number>();
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const reply = (status: number, json: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
      const body = (text === '' ? {} : JSON.parse(text)) as { num_samples?: number; request_id?: string };
      const route = req.url!.replace('/api/v1', '');
      if (route === '/create_session') return reply(200, { session_id: 's' });
      if (route === '/get_server_capabilities') return reply(200, { supported_models: [{ model_name: 'm', max_context_length: null }] });
      if (route === '/create_sampling_session') return reply(200, { sampling_session_id: 'ss' });
      if (route === '/asample') {
        const requestId = `r${samplesOf.size + 1}`;
        samplesOf.set(requestId, body.num_samples ?? 1);
        return reply(200, { request_id: requestId });
      }
      if (route === '/retrieve_future') {
        polls++;
        options.onPoll?.();
        if (polls <= pending) return options.tryAgain && polls % 2 === 0 ? reply(200, { type: 'try_again' }) : reply(408, { detail: 'Timeout waiting for result' });
        const sequences = Array.from({ length: samplesOf.get(body.request_id ?? '') ?? 1 }, () => ({ tokens: [7], logprobs: [-0.5], stop_reason: 'length' }));
        return reply(200, { sequences });
      }
      if (route === '/get_info') return reply(408, { detail: 'busy' });
      return reply(200, {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, polls: () => polls, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** One sample request of one token. */
export const oneTokenRequest = { prompt: { chunks: [{ type: 'encoded_text' as const, tokens: [1] }] }, num_samples: 1, sampling_params: { max_tokens: 1 } };
