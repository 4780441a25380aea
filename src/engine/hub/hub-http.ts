/**
 * Requests to the hub: the token goes only to the hub's own origin (never to the CDN a file
 * redirects to), redirects are followed by hand so the hub's headers on the first hop (the
 * 302 of a large file carries X-Linked-Etag) stay readable, and failures become TroupeErrors
 * that say what to do.
 */
import { TroupeError } from '../../util/errors.js';
import type { HubEnv } from './types.js';

export interface HubRequest {
  readonly method: 'GET' | 'HEAD';
  readonly url: string;
  readonly headers?: Record<string, string>;
  /** 'relative': stop at a redirect to another origin and return it (to read its headers). */
  readonly follow: 'all' | 'relative';
  /** What is being fetched, for error messages ("Org/Name", "config.json of Org/Name"). */
  readonly what: string;
}

const MAX_REDIRECTS = 10;

export async function hubFetch(env: HubEnv, request: HubRequest): Promise<Response> {
  const hubOrigin = new URL(env.endpoint).origin;
  let url = new URL(request.url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const headers: Record<string, string> = { 'user-agent': 'troupe', 'accept-encoding': 'identity', ...request.headers };
    if (env.token !== undefined && url.origin === hubOrigin) headers.authorization = `Bearer ${env.token}`;
    let response: Response;
    try {
      response = await fetch(url, { method: request.method, headers, redirect: 'manual' });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new TroupeError(
        'io',
        `cannot reach ${url.origin} for ${request.what} (${cause?.code ?? cause?.message ?? (error as Error).message}); check the network or HF_ENDPOINT, or set HF_HUB_OFFLINE=1 to use only the cache`,
        { cause: error },
      );
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) return response;
    const next = new URL(location, url);
    if (request.follow === 'relative' && next.origin !== url.origin) return response;
    await response.body?.cancel();
    url = next;
  }
  throw new TroupeError('io', `${request.url} redirected more than ${MAX_REDIRECTS} times while fetching ${request.what}`);
}

/** A TroupeError for a failed hub response, by status and the hub's X-Error-Code header. */
export function hubResponseError(response: Response, what: string): TroupeError {
  const code = response.headers.get('x-error-code');
  const message = response.headers.get('x-error-message');
  const detail = `HTTP ${response.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''} from ${response.url || 'the hub'}`;
  if (code === 'GatedRepo' || response.status === 403) {
    return new TroupeError('checkpoint', `${what} is gated or private and this token may not read it (${detail}); accept its licence on the model page, then set HF_TOKEN to a token of that account`);
  }
  if (response.status === 401) {
    return new TroupeError('checkpoint', `${what} needs authentication or does not exist (${detail}); set HF_TOKEN (or log in with \`hf auth login\`) if it is private or gated, else check the spelling`);
  }
  if (code === 'RevisionNotFound') return new TroupeError('checkpoint', `${what}: no such revision (${detail}); use a branch, tag or commit of the repository, e.g. @main`);
  if (response.status === 404) return new TroupeError('checkpoint', `${what} is not on the hub (${detail}); check the model id and revision`);
  return new TroupeError('io', `the hub failed on ${what} (${detail}); try again later`);
}
