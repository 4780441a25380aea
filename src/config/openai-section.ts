/**
 * `policy.openai:` an OpenAI-compatible server that plays roles (`troupe serve`, vLLM, SGLang,
 * llama.cpp, Ollama, a hosted API). Sampling only: such roles are evaluated, not trained.
 *
 *   policy:
 *     kind: openai                     # every role on the server ...
 *     openai:
 *       base_url: http://127.0.0.1:8000/v1
 *       model: tiny                    # ... as this model,
 *       models: { plan: tiny:plan }    # or per role (troupe serve names LoRA adapters base:role)
 *       roles: [plan]                  # with kind embedded: only these roles are served (mixed team)
 *
 * See docs/real-llms.md for each server's base URL and what it returns.
 */
import { z } from 'zod';

export const openaiModes = ['completions', 'chat'] as const;

export const openaiSection = z.strictObject({
  /** Base URL including /v1. */
  base_url: z.string().regex(/^https?:\/\/\S+$/, { error: 'base_url must be an http(s) URL such as http://127.0.0.1:8000/v1' }),
  /** Model name as GET /v1/models lists it. */
  model: z.string().min(1),
  /** Per-role model names on the same server (roles not listed use `model`). */
  models: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** Roles played by the server; default every role with kind openai, none otherwise. */
  roles: z.array(z.string().min(1)).optional(),
  /** Environment variable holding the API key (never the key itself). */
  api_key_env: z.string().min(1).optional(),
  /** Per HTTP attempt; small CPU servers and long answers need minutes. */
  timeout_ms: z.number().int().positive().default(120_000),
  /** Retries on 429 / 5xx / timeouts / network errors, with exponential backoff. */
  max_retries: z.number().int().min(0).default(3),
  /** Most requests in flight at once (the server batches what arrives together). */
  concurrency: z.number().int().min(1).default(16),
  /** completions: prompts sent as text; chat: as one user message through the model's chat template. */
  mode: z.enum(openaiModes).default('completions'),
  /** Ask for token ids and logprobs with vLLM's extra fields; false for servers that reject them. */
  token_ids: z.boolean().default(true),
});

export type OpenAISection = z.output<typeof openaiSection>;
