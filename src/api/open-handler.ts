/**
 * Opens the handler that `createHandler`, `serve` and `troupe serve` share: resolves the
 * models, loads them and builds the OpenAI or Tinker handler. `describe(url)` is the banner
 * the CLI prints once the handler listens.
 */
import { resolveModel } from '../engine/hub/resolve-model.js';
import { getKernels } from '../engine/kernels/get-kernels.js';
import { loadServedModels } from '../serve/load-served-models.js';
import { createOpenAIHandler, type OpenAIHandler } from '../serve/server.js';
import { cachedBaseModels, resolveModelArgument, type BaseModelSource } from '../serve/tinker/base-models.js';
import { createTinkerHandler, type TinkerHandler } from '../serve/tinker/tinker-server.js';
import { TroupeError } from '../util/errors.js';
import type { OpenAIHandlerOptions, TinkerHandlerOptions } from './handler-options.js';

export interface OpenedHandler<H> {
  readonly handler: H;
  /** What is served, for a listener at `url` (a few lines, ending in a newline). */
  describe(url: string): string;
}

export async function openOpenAIHandler(options: OpenAIHandlerOptions): Promise<OpenedHandler<OpenAIHandler>> {
  const dir = await resolveModel(options.model);
  // A hub id is served under its own name, as vLLM does (`Qwen/Qwen3-0.6B`), not its snapshot folder's.
  const name = options.name ?? (dir === options.model ? undefined : options.model);
  const models = loadServedModels(await getKernels(options.backend), dir, name === undefined ? {} : { name });
  const handler = createOpenAIHandler({ models, windowMs: options.windowMs ?? 2, seed: options.seed ?? 0, maxBodyBytes: options.maxBodyBytes });
  const lines = models.map((m) => `  ${m.name.padEnd(24)} ${m.adapter === undefined ? 'model  ' : 'adapter'} ${m.root}  (chat template: ${m.chatTemplate.source})`);
  return { handler, describe: (url) => `troupe serve: ${url}/v1\n${lines.join('\n')}\n` };
}

export async function openTinkerHandler(options: TinkerHandlerOptions): Promise<OpenedHandler<TinkerHandler>> {
  const named: BaseModelSource[] = [];
  for (const arg of options.models ?? []) named.push(await resolveModelArgument(arg, options.hubEnv));
  const cached = options.hfCache === false ? [] : cachedBaseModels(options.hubEnv).filter((c) => !named.some((m) => m.name === c.name));
  const models = [...named, ...cached];
  if (models.length === 0) throw new TroupeError('input', 'serve --tinker has no base model to offer: pass --model FOLDER (or NAME=FOLDER, or a hub id), repeatable, or put models in the Hugging Face cache (HF_HOME)');
  const kernels = await getKernels(options.backend);
  const { seed = 0, stateDir, loraAlpha, simulate, limits, batchSampling, samplerThread } = options;
  const handler = await createTinkerHandler({ kernels, models, seed, stateDir, loraAlpha, simulate, limits, batchSampling, samplerThread });
  const sim = options.simulate;
  const simulated = sim === undefined ? '' : `; SIMULATING a remote service: +${sim.latencyMs} ms per request, ${sim.usPerToken} us per token, ${sim.decodeMsPerToken ?? 0} ms per decoding step`;
  const thread = handler.service.samplerThread;
  const sampling = thread === undefined ? '' : `; sampling on a thread of its own (${thread.threads} kernel thread${thread.threads === 1 ? '' : 's'}, training ${kernels.threads})`;
  const saved = stateDir === undefined ? '' : `; saved weights in ${stateDir}`;
  return {
    handler,
    describe: (url) => `troupe serve --tinker: ${url} (Tinker API; TINKER_BASE_URL=${url}; LoRA alpha ${handler.service.loraAlpha})${saved}${simulated}${sampling}\n${models.map((m) => `  ${m.name.padEnd(24)} ${m.dir}`).join('\n')}\n`,
  };
}
