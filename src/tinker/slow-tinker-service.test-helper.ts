/**
 * Test helper of the Tinker client tests: a stand-in service whose one sample future stays
 * pending for `pending` polls (each answered 408, the long poll running out, or with
 * `tryAgain` every other one `{type: 'try_again'}`) before its result; `onPoll` runs on each.
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
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const reply = (status: number, json: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
      const route = req.url!.replace('/api/v1', '');
      if (route === '/create_session') return reply(200, { session_id: 's' });
      if (route === '/create_sampling_session') return reply(200, { sampling_session_id: 'ss' });
      if (route === '/asample') return reply(200, { request_id: 'r1' });
      if (route === '/retrieve_future') {
        polls++;
        options.onPoll?.();
        if (polls <= pending) return options.tryAgain && polls % 2 === 0 ? reply(200, { type: 'try_again' }) : reply(408, { detail: 'Timeout waiting for result' });
        return reply(200, { sequences: [{ tokens: [7], logprobs: [-0.5], stop_reason: 'length' }] });
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
