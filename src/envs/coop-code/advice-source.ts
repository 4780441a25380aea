/**
 * The "guided" external transition of MAGRPO: between turns an outside model reads the
 * problem, both functions and the test results and gives advice, which becomes part of the
 * next turn's prompts. `AdviceSource` is the seam (tests use a fake); `chatAdviceSource`
 * asks any OpenAI-compatible chat-completions endpoint (vLLM, SGLang, Ollama, llama.cpp).
 */
import { TroupeError } from '../../util/errors.js';

export interface AdviceRequest {
  /** The problem (HumanEval prompt: signature and docstring). */
  readonly problem: string;
  readonly aux: string;
  readonly main: string;
  /** Test results of the pair, as the feedback transition would show them. */
  readonly feedback: string;
}

export interface AdviceSource {
  /** Advice text; rejects when the source cannot answer (the role records a failure). */
  advise(request: AdviceRequest): Promise<string>;
}

export interface ChatAdviceOptions {
  /** e.g. http://localhost:8000/v1 */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  readonly maxTokens?: number;
  /** Injected for tests; default the global fetch. */
  readonly fetch?: typeof fetch;
}

export function advicePrompt(request: AdviceRequest): string {
  return [
    'Two programmers wrote Python together: a helper function `aux` and the main function that may call it.',
    'Problem:',
    request.problem,
    'Helper:',
    request.aux || '(none)',
    'Main function:',
    request.main || '(none)',
    'Test results:',
    request.feedback,
    'In at most five sentences, tell them what to fix or improve. Do not write the full solution.',
  ].join('\n');
}

export function chatAdviceSource(options: ChatAdviceOptions): AdviceSource {
  const doFetch = options.fetch ?? fetch;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    async advise(request) {
      let response: Response;
      try {
        response = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
          body: JSON.stringify({
            model: options.model,
            messages: [{ role: 'user', content: advicePrompt(request) }],
            max_tokens: options.maxTokens ?? 256,
            temperature: 0,
          }),
        });
      } catch (error) {
        throw new TroupeError('policy', `advice model at ${url} is unreachable: ${(error as Error).message}; check tasks.advice.base_url`, { cause: error });
      }
      if (!response.ok) {
        throw new TroupeError('policy', `advice model at ${url} answered HTTP ${response.status}: ${(await response.text()).slice(0, 200)}`);
      }
      const body = (await response.json()) as { choices?: Array<{ message?: { content?: unknown } }> };
      const content = body.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new TroupeError('policy', `advice model at ${url} returned no choices[0].message.content`);
      return content.trim();
    },
  };
}
