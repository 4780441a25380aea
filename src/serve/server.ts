/**
 * The OpenAI-compatible HTTP server over embedded models: a Fetch-API handler (no framework),
 * and that handler on a node:http port.
 *
 *   const server = await startServer({ models: loadServedModels(kernels, 'models/tiny') });
 *   // server.url === 'http://127.0.0.1:8000'; point any OpenAI client at `${server.url}/v1`
 *   await server.close();
 *
 *   const handler = createOpenAIHandler({ models });   // mount handler.fetch in any server
 *
 * Routes: GET /v1/models, POST /v1/completions, POST /v1/chat/completions, GET /health, and
 * vLLM's POST /tokenize, POST /detokenize and GET /tokenizer_info (tokenizer-routes.ts).
 * Every refusal is an OpenAI-style error object (api-error.ts) and the server keeps serving.
 */
import { Sampler } from '../engine/sampling/generate.js';
import type { GenerateRequest, Generation } from '../engine/sampling/types.js';
import type { LlamaModel } from '../engine/model/llama-model.js';
import { TroupeError } from '../util/errors.js';
import { deriveSeed } from '../util/rng.js';
import { ApiError, badParam } from './api-error.js';
import { Batcher, type BatchStats } from './batcher.js';
import { guardedHandler, jsonResponse, readRequestBody, type FetchHandler } from './fetch-plumbing.js';
import { listenHandler, pathOf } from './node-adapter.js';
import { chatBody, completionBody, type ChoiceResult, type FormatContext } from './format-response.js';
import { parseChatRequest, parseCompletionRequest, parseDetokenizeRequest, parseTokenizeRequest } from './parse-request.js';
import { echoPrompt } from './echo-prompt.js';
import { SSE_HEADERS, SseSink, SseStream } from './stream-response.js';
import { detokenize, encodePromptText, tokenize, tokenizerInfo } from './tokenizer-routes.js';
import { topLogprobs } from './top-logprobs.js';
import type { ServedModel, ServeRequest } from './types.js';

export interface OpenAIHandlerOptions {
  readonly models: readonly ServedModel[];
  /** Batching: quiet gap and longest wait (ms), see batcher.ts. Defaults 2 and 20. */
  readonly windowMs?: number;
  readonly maxWaitMs?: number;
  /** Most continuations decoded together. Default 64. */
  readonly maxBatch?: number;
  /** Seed of the stream that gives requests without `seed` their own seed. Default 0. */
  readonly seed?: number;
  /** Largest accepted request body. Default 8 MiB. */
  readonly maxBodyBytes?: number;
  /** Where server errors (5xx) are reported. Default: stderr. */
  readonly log?: (line: string) => void;
}

export interface ServeOptions extends OpenAIHandlerOptions {
  /** Default 127.0.0.1 (loopback only). */
  readonly host?: string;
  /** Default 8000; 0 picks a free port. */
  readonly port?: number;
}

/** The handler and its batching counters (summed over models). */
export interface OpenAIHandler extends FetchHandler {
  stats(): BatchStats;
}

export interface RunningServer {
  /** e.g. http://127.0.0.1:8000 (clients use `${url}/v1`). */
  readonly url: string;
  readonly port: number;
  /** Batching counters summed over models. */
  stats(): BatchStats;
  /** Stops accepting connections, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

const ROUTES: Record<string, string> = {
  '/v1/models': 'GET',
  '/v1/completions': 'POST',
  '/v1/chat/completions': 'POST',
  '/health': 'GET',
  // vLLM's tokenizer routes (no /v1 prefix, as vLLM serves them), see tokenizer-routes.ts.
  '/tokenize': 'POST',
  '/detokenize': 'POST',
  '/tokenizer_info': 'GET',
};

/** The request body limit of startServer when `maxBodyBytes` is not given (troupe serve --max-body-mb). */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The server on a port: the handler behind node:http. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const handler = createOpenAIHandler(options);
  const { url, port, close } = await listenHandler(handler, options.host ?? '127.0.0.1', options.port ?? 8000);
  // In-flight requests finish (their batch is already scheduled).
  return { url, port, stats: () => handler.stats(), close };
}

export function createOpenAIHandler(options: OpenAIHandlerOptions): OpenAIHandler {
  if (options.models.length === 0) throw new TroupeError('input', 'startServer needs at least one model to serve');
  const models = new Map(options.models.map((m) => [m.name, m]));
  const batchers = new Map<LlamaModel, Batcher>();
  for (const m of options.models) {
    if (!batchers.has(m.model)) batchers.set(m.model, new Batcher(new Sampler(m.model, m.tokenizer), { windowMs: options.windowMs, maxWaitMs: options.maxWaitMs, maxBatch: options.maxBatch }));
  }
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const created = Math.floor(Date.now() / 1000);
  let counter = 0;

  const listModels = () => ({
    object: 'list',
    data: options.models.map((m) => ({
      id: m.name,
      object: 'model',
      created,
      owned_by: 'troupe',
      root: m.root,
      parent: m.parent ?? null,
      max_model_len: m.model.config.max_position_embeddings,
    })),
  });

  /** Whether the server put a BOS before text prompt i (encodePromptText; echo shows that token as no text). */
  const addsBos = (request: ServeRequest, served: ServedModel, i: number): boolean =>
    request.endpoint === 'completions' && 'text' in request.prompts[i]! && request.addSpecialTokens && served.tokenizer.special.bos !== undefined;

  const promptIdsOf = (request: ServeRequest, served: ServedModel): number[][] => {
    const { tokenizer, model } = served;
    const V = model.config.vocab_size;
    const context = model.config.max_position_embeddings;
    const all =
      request.endpoint === 'chat'
        ? [served.chatTemplate.encode(request.messages, { addGenerationPrompt: request.addGenerationPrompt, enableThinking: request.enableThinking, kwargs: request.chatTemplateKwargs })]
        : request.prompts.map((p) => ('ids' in p ? [...p.ids] : encodePromptText(tokenizer, p.text, request.addSpecialTokens)));
    const param = request.endpoint === 'chat' ? 'messages' : 'prompt';
    all.forEach((ids, i) => {
      const where = all.length > 1 ? ` (prompt ${i})` : '';
      if (ids.length === 0) throw badParam(param, `the prompt${where} is empty; give at least one token`);
      const bad = ids.find((id) => id < 0 || id >= V);
      if (bad !== undefined) throw badParam(param, `token id ${bad}${where} is outside the vocabulary 0..${V - 1}`);
      if (ids.length > context) {
        throw badParam(param, `this model's maximum context length is ${context} tokens, but the prompt${where} has ${ids.length} tokens; shorten it`, 'context_length_exceeded');
      }
    });
    return all;
  };

  /** The served model of that name (404 listing the names); none named: the first one (the tokenizer routes). */
  const servedModel = (name: string | undefined): ServedModel => {
    const served = name === undefined ? options.models[0]! : models.get(name);
    if (served === undefined) {
      throw new ApiError(404, `the model ${JSON.stringify(name)} does not exist; available models: ${[...models.keys()].join(', ')}`, { type: 'not_found_error', param: 'model', code: 'model_not_found' });
    }
    return served;
  };

  const complete = async (request: ServeRequest): Promise<Response> => {
    const served = servedModel(request.model);
    const prompts = promptIdsOf(request, served);
    const context = served.model.config.max_position_embeddings;
    const seed = request.seed ?? deriveSeed(options.seed ?? 0, 'request', counter);
    const id = `${request.endpoint === 'chat' ? 'chatcmpl' : 'cmpl'}-troupe-${++counter}`;
    const generateRequests: GenerateRequest[] = prompts.map((promptIds) => ({
      promptIds,
      n: request.n,
      seed,
      // Chat without max_tokens may use the rest of the context, as OpenAI's API does.
      maxTokens: request.maxTokens ?? (request.endpoint === 'chat' ? Math.max(1, context - promptIds.length) : 16),
      temperature: request.temperature,
      topP: request.topP,
      topK: request.topK,
      stop: request.stop,
      stopIds: served.stopIds,
      adapter: served.adapter,
    }));
    const ctx: FormatContext = { id, created: Math.floor(Date.now() / 1000), model: served.name, tokenizer: served.tokenizer, request };
    // Top alternatives of a whole answer cost one forward over it; a stream takes them per token.
    const withTop = !request.stream && request.logprobs !== undefined && request.logprobs.top > 0;
    const choicesOf = (generations: Generation[][]): ChoiceResult[] =>
      generations.flatMap((row, p) =>
        row.map((generation, i) => {
          if (generation.finishReason === 'error') throw new ApiError(400, generation.error ?? 'generation failed', { param: 'prompt' });
          const index = p * request.n + i;
          const promptIds = prompts[p]!;
          if (request.echo) {
            const k = request.logprobs?.top;
            const echo = echoPrompt(served.model, served.tokenizer, { promptIds, generatedIds: generation.ids, addedBos: addsBos(request, served, p), k, adapter: served.adapter });
            return { index, promptIds, generation, echo, ...(echo.generatedTop ? { top: echo.generatedTop } : {}) };
          }
          const top = withTop ? topLogprobs(served.model, { promptIds, ids: generation.ids, k: request.logprobs!.top, adapter: served.adapter }) : undefined;
          return { index, promptIds, generation, ...(top ? { top } : {}) };
        }),
      );
    const batcher = batchers.get(served.model)!;
    if (request.maxTokens === 0) {
      // Scoring only (echo): nothing to generate, so the batcher is not involved.
      const nothing: Generation = { ids: [], logprobs: [], samplingLogprobs: [], text: '', finishReason: 'length' };
      return jsonResponse(200, completionBody(ctx, choicesOf(prompts.map(() => Array.from({ length: request.n }, () => nothing)))));
    }
    if (!request.stream) {
      const choices = choicesOf(await batcher.submit(generateRequests));
      return jsonResponse(200, request.endpoint === 'chat' ? chatBody(ctx, choices) : completionBody(ctx, choices));
    }
    // Each token is queued as the batch draws it (the batch runs live because of this listener).
    // The response is handed out at the first chunk, so a failure before it is still a JSON error.
    const sink = new SseSink();
    const sse = new SseStream(ctx, sink, prompts);
    const done = batcher.submit(generateRequests, (token) => sse.token(token)).then((generations) => sse.end(choicesOf(generations)));
    done.catch((error: unknown) => sink.fail(error));
    await Promise.race([sink.opened, done]);
    return new Response(sink.body, { status: 200, headers: SSE_HEADERS });
  };

  const route = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = ROUTES[path];
    if (method === undefined) {
      const routes = Object.entries(ROUTES).map(([route, verb]) => `${verb} ${route}`).join(', ');
      throw new ApiError(404, `no route ${req.method} ${path}; routes: ${routes}`, { type: 'not_found_error', code: 'unknown_url' });
    }
    if (req.method !== method) throw new ApiError(405, `${path} takes ${method}, not ${req.method}`, { code: 'method_not_allowed', headers: { Allow: method } });
    if (path === '/health') return jsonResponse(200, { status: 'ok' });
    if (path === '/v1/models') return jsonResponse(200, listModels());
    if (path === '/tokenizer_info') return jsonResponse(200, tokenizerInfo(servedModel(url.searchParams.get('model') ?? undefined)));
    const text = new TextDecoder().decode(await readRequestBody(req, maxBody, () => new ApiError(413, `request body exceeds ${maxBody} bytes (troupe serve --max-body-mb); send smaller requests`, { code: 'request_too_large' })));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new ApiError(400, `the request body is not valid JSON (${(error as Error).message})`, { code: 'invalid_json' });
    }
    if (path === '/tokenize') {
      const request = parseTokenizeRequest(body);
      return jsonResponse(200, tokenize(servedModel(request.model), request));
    }
    if (path === '/detokenize') {
      const request = parseDetokenizeRequest(body);
      return jsonResponse(200, detokenize(servedModel(request.model), request));
    }
    return complete(path === '/v1/chat/completions' ? parseChatRequest(body) : parseCompletionRequest(body));
  };

  const handler = guardedHandler(route, (error, req) => {
    let apiError: ApiError;
    if (error instanceof ApiError) apiError = error;
    else if (error instanceof TroupeError && (error.category === 'input' || error.category === 'config')) apiError = new ApiError(400, error.message);
    else {
      log(`troupe serve: ${req.method} ${pathOf(req)} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      apiError = new ApiError(500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { status: apiError.status, body: apiError.toBody(), headers: apiError.headers };
  }, { closedBody: new ApiError(503, 'the server is shutting down; retry against another instance').toBody() });

  return {
    fetch: handler.fetch,
    close: handler.close,
    stats: () => {
      const total: BatchStats = { batches: 0, submissions: 0, largestBatch: 0, tokens: 0 };
      for (const b of batchers.values()) {
        total.batches += b.stats.batches;
        total.submissions += b.stats.submissions;
        total.tokens += b.stats.tokens;
        total.largestBatch = Math.max(total.largestBatch, b.stats.largestBatch);
      }
      return total;
    },
  };
}
