/**
 * A Policy that samples through any OpenAI-compatible HTTP server: `troupe serve`, vLLM,
 * SGLang, llama.cpp's server, Ollama, or a hosted API. Sampling only: it cannot update weights.
 *
 *   const policy = new OpenAIPolicy({ id: 'served', baseUrl: 'http://127.0.0.1:8000/v1',
 *     model: 'tiny:plan', timeoutMs: 60_000, maxRetries: 3, concurrency: 8, mode: 'completions' });
 *   const [[completion]] = await policy.sample([{ prompt: 'PLAN 1/4\nA:', n: 1, seed: 7, ... }]);
 *
 * Token-in/token-out when the server allows it: a request's `promptIds` are sent as the
 * prompt (completions mode), and the ids and logprobs of the answer are read from the response:
 * `token_ids` / `prompt_token_ids` (troupe serve; vLLM >= 0.10.2 with `return_token_ids`), else
 * logprob tokens written `token_id:N` (vLLM's `return_tokens_as_token_ids`), plus the
 * logprobs themselves. A server that returns neither (Ollama, hosted APIs) still gives text: such
 * completions carry no `ids`/`logprobs`, which the learner refuses, and the policy warns once
 * that they are for evaluation only. Set `tokenIds: false` for servers that reject the extra
 * request fields (api.openai.com does).
 *
 * Each request is one HTTP call with `n` and `seed` (servers without `n` get the missing
 * choices asked for one by one, seeds derived per choice). Rate limits (429), server errors
 * (5xx), timeouts and network failures are retried with exponential backoff; a request that
 * still fails becomes `n` completions with finishReason 'error' and the reason, never an
 * empty answer passed off as real.
 */
import { samplingSeed } from './sampling-seed.js';
import { RequestLimit } from '../tinker/request-limit.js';
import { TroupeError } from '../util/errors.js';
import { deriveSeed } from '../util/rng.js';
import type { Completion, FinishReason, Policy, SampleRequest } from './types.js';

export interface OpenAIPolicyOptions {
  readonly id: string;
  /** Base URL including `/v1`, e.g. http://127.0.0.1:8000/v1. */
  readonly baseUrl: string;
  /** Model name as the server lists it (GET /v1/models). */
  readonly model: string;
  /** Name of the environment variable holding the API key; no Authorization header when absent. */
  readonly apiKeyEnv?: string;
  /** Per attempt. */
  readonly timeoutMs: number;
  /** Retries after the first attempt (0 = try once). */
  readonly maxRetries: number;
  /** Most HTTP requests in flight at once. */
  readonly concurrency: number;
  /** `completions`: the prompt as text (or ids); `chat`: the prompt as one user message. */
  readonly mode: 'completions' | 'chat';
  /** Ask for token ids and logprobs with vLLM's extra fields. Default true. */
  readonly tokenIds?: boolean;
  /** First backoff delay; doubles per retry (capped at 30 s). Default 500 ms. */
  readonly retryBaseMs?: number;
  /** Where the one-time warnings go. Default: stderr. */
  readonly warn?: (message: string) => void;
  /** Environment to read the key from. Default: process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

type Json = Record<string, any>;

/** A request that failed in a way retrying will not fix (or after the last retry). */
class RequestFailure extends Error {}

/** Whether a status is worth retrying: rate limits, timeouts and server errors. */
function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function isIdList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((x) => Number.isInteger(x));
}

/** Ids from logprob tokens written `token_id:N`; undefined when any token is not. */
function idsFromTokens(tokens: unknown): number[] | undefined {
  if (!Array.isArray(tokens) || tokens.length === 0) return undefined;
  const ids = tokens.map((t) => (typeof t === 'string' ? /^token_id:(\d+)$/.exec(t)?.[1] : undefined));
  return ids.every((x) => x !== undefined) ? ids.map(Number) : undefined;
}

export class OpenAIPolicy implements Policy {
  readonly id: string;
  readonly options: OpenAIPolicyOptions;
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly limiter: RequestLimit;
  private warnedNoIds = false;

  constructor(options: OpenAIPolicyOptions) {
    const bad = (field: string, problem: string) => new TroupeError('config', `openai policy ${options.id}: ${field} ${problem}`);
    if (!/^https?:\/\//.test(options.baseUrl)) throw bad('base_url', `must start with http:// or https://, got ${JSON.stringify(options.baseUrl)} (e.g. http://127.0.0.1:8000/v1)`);
    if (options.model.length === 0) throw bad('model', 'must name a model the server lists (GET /v1/models)');
    if (!(Number.isInteger(options.timeoutMs) && options.timeoutMs > 0)) throw bad('timeout_ms', `must be a positive integer, got ${options.timeoutMs}`);
    if (!(Number.isInteger(options.maxRetries) && options.maxRetries >= 0)) throw bad('max_retries', `must be an integer >= 0, got ${options.maxRetries}`);
    if (!(Number.isInteger(options.concurrency) && options.concurrency >= 1)) throw bad('concurrency', `must be an integer >= 1, got ${options.concurrency}`);
    if (options.mode !== 'completions' && options.mode !== 'chat') throw bad('mode', `must be completions or chat, got ${JSON.stringify(options.mode)}`);
    this.id = options.id;
    this.options = options;
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/${options.mode === 'chat' ? 'chat/completions' : 'completions'}`;
    this.headers = { 'Content-Type': 'application/json' };
    if (options.apiKeyEnv !== undefined) {
      const key = (options.env ?? process.env)[options.apiKeyEnv];
      if (key === undefined || key === '') throw bad('api_key_env', `names ${options.apiKeyEnv}, which is not set; export ${options.apiKeyEnv}=... or remove api_key_env for servers without keys`);
      this.headers.Authorization = `Bearer ${key}`;
    }
    this.limiter = new RequestLimit(options.concurrency);
  }

  async sample(requests: readonly SampleRequest[]): Promise<Completion[][]> {
    return Promise.all(requests.map((r) => this.sampleOne(r)));
  }

  private async sampleOne(request: SampleRequest): Promise<Completion[]> {
    if (request.n === 0) return [];
    let completions: Completion[];
    try {
      completions = await this.choices(request, request.n, request.seed);
      // Servers without `n` answer one choice: ask for the rest one by one, seeds per choice.
      for (let i = completions.length; i < request.n; i++) {
        const [extra] = await this.choices(request, 1, deriveSeed(request.seed, 'choice', i));
        if (extra === undefined) throw new RequestFailure(`the server answered no choice for choice ${i}`);
        completions.push(extra);
      }
    } catch (error) {
      if (!(error instanceof RequestFailure)) throw error;
      const failed: Completion = { text: '', finishReason: 'error', error: `${this.options.model} at ${this.url}: ${error.message}` };
      return Array.from({ length: request.n }, () => failed);
    }
    this.warnIfTextOnly(completions);
    return completions;
  }

  private body(request: SampleRequest, n: number, seed: number): Json {
    const body: Json = {
      model: this.options.model,
      n,
      // The rule every sampler follows (sampling-seed.ts), so Troupe's own server samples what
      // the embedded run samples for the same request.
      seed: samplingSeed(seed),
      temperature: request.temperature,
      top_p: request.topP,
      max_tokens: request.maxTokens,
    };
    if (request.stop.length > 0) body.stop = [...request.stop];
    if (request.topK > 0) body.top_k = request.topK; // vLLM, SGLang, llama.cpp and troupe serve accept it
    if (this.options.mode === 'chat') {
      body.messages = [{ role: 'user', content: request.prompt }];
      body.logprobs = true;
    } else {
      body.prompt = request.promptIds ? [...request.promptIds] : request.prompt;
      body.logprobs = 0;
    }
    if (this.options.tokenIds ?? true) {
      body.return_token_ids = true;
      body.return_tokens_as_token_ids = true;
    }
    return body;
  }

  /** One HTTP call (with retries) asking for `n` choices; returns them in index order. */
  private async choices(request: SampleRequest, n: number, seed: number): Promise<Completion[]> {
    const response = await this.post(this.body(request, n, seed));
    const choices: Json[] = Array.isArray(response.choices) ? [...response.choices] : [];
    if (choices.length === 0) throw new RequestFailure(`the response has no choices: ${JSON.stringify(response).slice(0, 200)}`);
    choices.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return choices.slice(0, n).map((choice) => this.toCompletion(choice, response, request));
  }

  private toCompletion(choice: Json, response: Json, request: SampleRequest): Completion {
    const chat = this.options.mode === 'chat';
    const text = chat ? choice.message?.content : choice.text;
    if (typeof text !== 'string') {
      return { text: '', finishReason: 'error', error: `the server's choice has no ${chat ? 'message.content' : 'text'} (finish_reason ${JSON.stringify(choice.finish_reason)})` };
    }
    const finishReason: FinishReason = choice.finish_reason === 'length' ? 'length' : 'stop';
    const lp = choice.logprobs;
    const logprobs: unknown = chat ? lp?.content?.map((c: Json) => c?.logprob) : lp?.token_logprobs;
    const tokens: unknown = chat ? lp?.content?.map((c: Json) => c?.token) : lp?.tokens;
    const ids = isIdList(choice.token_ids) ? choice.token_ids : idsFromTokens(tokens);
    const promptIds = [choice.prompt_token_ids, response.prompt_token_ids, request.promptIds].find(isIdList);
    const completion: { -readonly [K in keyof Completion]: Completion[K] } = { text, finishReason };
    if (promptIds !== undefined) completion.promptIds = [...promptIds];
    if (ids !== undefined) completion.ids = [...ids];
    // Logprobs only count when they line up with the ids one to one.
    if (ids !== undefined && Array.isArray(logprobs) && logprobs.length === ids.length && logprobs.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      completion.logprobs = logprobs as number[];
    }
    return completion;
  }

  private warnIfTextOnly(completions: readonly Completion[]): void {
    if (this.warnedNoIds || completions.every((c) => c.finishReason === 'error' || (c.ids !== undefined && c.logprobs !== undefined && c.promptIds !== undefined))) return;
    this.warnedNoIds = true;
    const warn = this.options.warn ?? ((m: string) => process.stderr.write(`${m}\n`));
    warn(
      `troupe: policy ${this.id}: ${this.url} returned text without token ids and logprobs; its samples are for evaluation only, not for training. ` +
        'vLLM >= 0.10.2 returns them (return_token_ids), troupe serve always does; see docs/real-llms.md',
    );
  }

  /** POSTs with timeout and retries; returns the parsed JSON body of a 2xx answer. */
  private async post(body: Json): Promise<Json> {
    const { maxRetries, timeoutMs } = this.options;
    const base = this.options.retryBaseMs ?? 500;
    let last = '';
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      let delay = Math.min(30_000, base * 2 ** attempt);
      try {
        const res = await this.limiter.run(() => fetch(this.url, { method: 'POST', headers: this.headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) }).then(async (r) => ({ status: r.status, text: await r.text(), retryAfter: r.headers.get('retry-after') })));
        if (res.status >= 200 && res.status < 300) {
          try {
            return JSON.parse(res.text) as Json;
          } catch {
            throw new RequestFailure(`HTTP ${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}`);
          }
        }
        last = `HTTP ${res.status}: ${errorMessage(res.text)}`;
        if (!retryable(res.status)) throw new RequestFailure(last);
        const after = Number(res.retryAfter);
        if (Number.isFinite(after) && after > 0) delay = Math.min(30_000, after * 1000);
      } catch (error) {
        if (error instanceof RequestFailure) throw error;
        const e = error as Error;
        last = e.name === 'TimeoutError' || e.name === 'AbortError' ? `no answer within ${timeoutMs} ms` : `network error: ${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ''}`;
      }
      if (attempt < maxRetries) await sleep(delay);
    }
    throw new RequestFailure(`${last} (after ${maxRetries + 1} attempt${maxRetries === 0 ? '' : 's'})`);
  }
}

/** The `error.message` of an OpenAI-style error body, else the body's start. */
function errorMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as Json)?.error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: show the raw start below
  }
  return text.slice(0, 200) || '(empty body)';
}

/** The `policy.openai` config section's fields (snake_case, as in the file). */
export interface OpenAIRoleSettings {
  readonly base_url: string;
  readonly model: string;
  readonly models: Readonly<Record<string, string>>;
  readonly api_key_env?: string;
  readonly timeout_ms: number;
  readonly max_retries: number;
  readonly concurrency: number;
  readonly mode: 'completions' | 'chat';
  readonly token_ids: boolean;
}

/**
 * One OpenAIPolicy per served model name for `roles`, by role: roles on the same model share
 * one policy (one concurrency pool, and the rollout batches their requests together). The
 * policy id is `openai:<model>`, so samples say where they came from.
 */
export function openaiRolePolicies(settings: OpenAIRoleSettings, roles: readonly string[], teamRoles: readonly string[]): Map<string, OpenAIPolicy> {
  const unknown = [...roles, ...Object.keys(settings.models)].filter((r) => !teamRoles.includes(r));
  if (unknown.length > 0) throw new TroupeError('config', `policy.openai names role(s) ${[...new Set(unknown)].join(', ')} that the team does not have; its roles: ${teamRoles.join(', ')}`);
  const unserved = Object.keys(settings.models).filter((r) => !roles.includes(r));
  if (unserved.length > 0) {
    throw new TroupeError(
      'config',
      `policy.openai.models names role(s) ${unserved.join(', ')} that the server does not play (served: ${roles.join(', ') || 'none'}); add them to policy.openai.roles or remove their model names`,
    );
  }
  const byModel = new Map<string, OpenAIPolicy>();
  const byRole = new Map<string, OpenAIPolicy>();
  for (const role of roles) {
    const model = settings.models[role] ?? settings.model;
    let policy = byModel.get(model);
    if (policy === undefined) {
      policy = new OpenAIPolicy({
        id: `openai:${model}`,
        baseUrl: settings.base_url,
        model,
        ...(settings.api_key_env === undefined ? {} : { apiKeyEnv: settings.api_key_env }),
        timeoutMs: settings.timeout_ms,
        maxRetries: settings.max_retries,
        concurrency: settings.concurrency,
        mode: settings.mode,
        tokenIds: settings.token_ids,
      });
      byModel.set(model, policy);
    }
    byRole.set(role, policy);
  }
  return byRole;
}
