/**
 * Tinker's `asample` on the embedded engine: `num_samples` continuations of one prompt in one
 * Sampler call (the prompt is prefilled once), each with the logprob of every sampled token
 * at temperature 1 (what forward_backward computes for the same weights, so the sampler's
 * logprobs can serve as the behaviour policy of importance_sampling / ppo). Prompt logprobs
 * (`compute_logprobs`) come from the same forward pass the trainer uses.
 */
import { logSoftmaxGather } from '../../engine/autograd/log-softmax-gather.js';
import { Tape } from '../../engine/autograd/tape.js';
import type { LlamaModel } from '../../engine/model/llama-model.js';
import type { GenerateRequest, Generation } from '../../engine/sampling/types.js';
import type { SampleResponse } from '../../tinker/types.js';
import { topLogprobs } from '../top-logprobs.js';
import type { LoadedBase } from './base-models.js';
import type { CheckedSampleRequest } from './check-sample-request.js';
import { badField } from './tinker-api-error.js';

/** Log p(tokens[t] | tokens[<t]) for t >= 1; null for the first token, which has no context. */
export function promptLogprobs(model: LlamaModel, tokens: readonly number[], adapter: string | undefined): Array<number | null> {
  if (tokens.length < 2) return tokens.map(() => null);
  const tape = new Tape(model.kernels, { grad: false });
  try {
    const logits = model.forward(tape, [tokens.slice(0, -1)], { adapter });
    return [null, ...Array.from(logSoftmaxGather(tape, logits, tokens.slice(1)).data)];
  } finally {
    tape.dispose();
  }
}

/** One asample request as the sampler runs it: its checked fields, the adapter of its sampler and its seed. */
export interface SampleJob {
  readonly adapter: string | undefined;
  readonly request: CheckedSampleRequest;
  readonly seed: number;
}

/** Runs a request checkSampleRequest accepted (at submit time, so nothing here is the client's fault but the engine's). */
export function sample(base: LoadedBase, adapter: string | undefined, request: CheckedSampleRequest, seed: number): SampleResponse {
  const job: SampleJob = { adapter, request, seed };
  const [generations] = request.generate.maxTokens > 0 ? base.sampler.generate([generateRequest(job)]) : [[]];
  const prompt = request.promptLogprobs ? promptLogprobs(base.model, request.prompt, adapter) : undefined;
  return response(base, job, generations!, prompt);
}

/**
 * Several requests to one base in one go (`troupe serve --tinker --batch-sampling`): every
 * continuation of every request decodes in the same batched steps, and the prompt logprobs of
 * the requests that ask for them are scored in one pass per adapter (targetLogprobs; the
 * prompts a GRPO group shares are computed once). Each request keeps its own seed, but its
 * logprobs may differ from a lone run's in the last bits (the native products' shapes depend on
 * what runs together), and so, rarely, may a token whose draw such a difference decides.
 * Returns one response or Error per job.
 */
export function sampleMany(base: LoadedBase, jobs: readonly SampleJob[]): Array<SampleResponse | Error> {
  const generating = jobs.filter((j) => j.request.generate.maxTokens > 0);
  const generated = base.sampler.generate(generating.map(generateRequest));
  const scored = batchedPromptLogprobs(base.model, jobs);
  let g = 0;
  return jobs.map((job, i) => {
    try {
      return response(base, job, job.request.generate.maxTokens > 0 ? generated[g++]! : [], scored[i]);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  });
}

function generateRequest(job: SampleJob): GenerateRequest {
  return { ...job.request.generate, seed: job.request.seed ?? job.seed, ...(job.adapter ? { adapter: job.adapter } : {}) };
}

/** Prompt logprobs of the jobs that ask for them, one targetLogprobs pass per adapter (a head-LoRA adapter alone, through forward). */
function batchedPromptLogprobs(model: LlamaModel, jobs: readonly SampleJob[]): Array<Array<number | null> | undefined> {
  const out: Array<Array<number | null> | undefined> = jobs.map(() => undefined);
  const byAdapter = new Map<string | undefined, number[]>();
  jobs.forEach((job, i) => {
    if (!job.request.promptLogprobs) return;
    if (job.request.prompt.length < 2 || (job.adapter !== undefined && model.adapters.get(job.adapter)?.headWeights())) {
      out[i] = promptLogprobs(model, job.request.prompt, job.adapter);
      return;
    }
    byAdapter.set(job.adapter, [...(byAdapter.get(job.adapter) ?? []), i]);
  });
  for (const [adapter, indices] of byAdapter) {
    const tape = new Tape(model.kernels, { grad: false });
    try {
      const rows = indices.map((i) => ({ tokens: jobs[i]!.request.prompt.slice(0, -1), targets: jobs[i]!.request.prompt.slice(1) }));
      const { logprobs, offsets } = model.targetLogprobs(tape, rows, adapter === undefined ? {} : { adapter });
      indices.forEach((i, r) => (out[i] = [null, ...Array.from(logprobs.data.subarray(offsets[r]!, offsets[r + 1]!))]));
    } finally {
      tape.dispose();
    }
  }
  return out;
}

/** The SampleResponse of one job from its generations and prompt logprobs. */
function response(base: LoadedBase, job: SampleJob, generations: readonly Generation[], prompt: Array<number | null> | undefined): SampleResponse {
  const { request, adapter } = job;
  const full = { stop_reason: 'length' as const, tokens: [], logprobs: [] };
  const sequences = request.generate.maxTokens > 0 ? generations.map((g) => {
    if (g.finishReason === 'error') throw badField('prompt', g.error ?? 'generation failed');
    return { stop_reason: g.finishReason, tokens: g.ids, logprobs: g.logprobs };
  }) : Array.from({ length: request.generate.n }, () => full);
  const k = request.topkPromptLogprobs;
  return {
    sequences,
    ...(prompt !== undefined ? { prompt_logprobs: prompt } : {}),
    ...(k > 0
      ? { topk_prompt_logprobs: [null, ...topLogprobs(base.model, { promptIds: request.prompt.slice(0, 1), ids: request.prompt.slice(1), k, adapter }).map((row) => row.map((a) => [a.id, a.logprob] as const))] }
      : {}),
  };
}
