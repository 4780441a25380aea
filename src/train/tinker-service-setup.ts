/**
 * What every `policy.kind: tinker` command (train, eval, rollout) needs before it samples: the
 * API key, the connection, the base model's name on the service, the LoRA shape and alpha the
 * service must use to reproduce an embedded run, and the tokenizer and prompt format read from
 * the base model's local folder (prompts are tokenised here, never on the service).
 *
 *   const client = await connectTinker(config, log);
 *   const baseModel = await serviceBaseModel(client, config);
 *   const { tokenizer, prompting } = tinkerPrompting(config);
 */
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { ResolvedConfig } from '../config/resolve-config.js';
import { findModelFolder } from '../engine/hub/resolve-model.js';
import { TOKENIZER_FILE } from '../engine/io/checkpoint.js';
import { readTokenizer } from '../engine/tokenizer/load-tokenizer.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import type { PromptFormat } from '../policy/encode-prompt.js';
import { promptFormatOf } from '../policy/prompt-format.js';
import { TinkerClient, TinkerSampler } from '../tinker/tinker-client.js';
import { TINKER_ATTENTION_MODULES, TINKER_MLP_MODULES, type LoraConfigWire } from '../tinker/types.js';
import { TroupeError } from '../util/errors.js';

export const TINKER_API_KEY_ENV = 'TINKER_API_KEY';

/** The API key from the environment only (a key in a config file ends up in shared run folders). */
export function tinkerApiKey(env: NodeJS.ProcessEnv = process.env): string {
  const key = env[TINKER_API_KEY_ENV];
  if (key === undefined || key.trim() === '') {
    throw new TroupeError('config', `policy.kind tinker needs the service's API key in the ${TINKER_API_KEY_ENV} environment variable (keys look like tml-...); export ${TINKER_API_KEY_ENV}=tml-... and run again (troupe serve --tinker accepts any tml- key)`);
  }
  return key.trim();
}

/** The base model's name on the service: policy.tinker.base_model, else model.path. */
export function tinkerBaseModel(config: ResolvedConfig): string {
  const name = config.policy.tinker?.base_model ?? config.model.path;
  if (name === undefined) throw new TroupeError('config', 'policy.tinker.base_model: which base model should the service train? Set policy.tinker.base_model or model.path (a hub id or a folder the service serves)');
  return name;
}

/** The client of policy.tinker; `log` hears each minute a request's result is still pending. */
export function connectTinker(config: ResolvedConfig, log?: (m: string) => void): Promise<TinkerClient> {
  const section = config.policy.tinker!;
  return TinkerClient.connect({
    baseUrl: section.base_url,
    apiKey: tinkerApiKey(),
    maxRetries: section.max_retries,
    sampleConcurrency: section.concurrency,
    futureTimeoutMs: section.future_timeout_s === undefined ? undefined : section.future_timeout_s * 1000,
    onWait: log,
  });
}

/**
 * The base model's name as the service lists it. policy.tinker.base_model is taken as given;
 * model.path is too when the service lists it (a hub id), and a local folder is matched by its
 * folder name (what `troupe serve --tinker --model FOLDER` serves it as).
 */
export async function serviceBaseModel(client: TinkerClient, config: ResolvedConfig): Promise<string> {
  const name = tinkerBaseModel(config);
  if (config.policy.tinker?.base_model !== undefined) return name;
  const listed = (await client.capabilities()).map((m) => m.model_name);
  if (listed.includes(name)) return name;
  const folderName = existsSync(name) ? basename(resolve(name)) : undefined;
  if (folderName !== undefined && listed.includes(folderName)) return folderName;
  throw new TroupeError('config', `model.path: the service at ${client.baseUrl} does not serve ${JSON.stringify(name)} (it lists ${listed.join(', ') || 'no models'}); set policy.tinker.base_model to one of those`);
}

/**
 * The context length the service reports for a base model (get_server_capabilities), or
 * undefined when it reports none. TinkerPolicy shortens max_tokens to fit it, as the embedded
 * sampler stops at the context: the service refuses a prompt plus max_tokens past it.
 */
export async function serviceContextLength(client: TinkerClient, baseModel: string): Promise<number | undefined> {
  return (await client.capabilities()).find((m) => m.model_name === baseModel)?.max_context_length ?? undefined;
}

/**
 * The tokenizer and prompt format of a tinker config, read locally from model.path, else the
 * base model's hub id in the Hugging Face cache (only tokenizer and template files, never the
 * weights): the chat template for natural-format prompts and the stop tokens, as an embedded
 * run of the same folder uses them (setup-run.ts), so both send the same ids.
 */
export function tinkerPrompting(config: ResolvedConfig): { tokenizer: Tokenizer; prompting: PromptFormat } {
  const name = config.model.path ?? tinkerBaseModel(config);
  const dir = findModelFolder(name);
  const file = join(dir, TOKENIZER_FILE);
  if (!existsSync(file)) throw new TroupeError('config', `model.path: ${name} has no tokenizer.json (${file}); policy.kind tinker tokenises prompts locally, so set model.path to the base model's folder or hub id`);
  const tokenizer = readTokenizer(file);
  return { tokenizer, prompting: promptFormatOf(dir, tokenizer, { format: config.team.format, enableThinking: config.model.enable_thinking }) };
}

/**
 * The LoRA shape the service is asked for: the embedded run's (model.lora.r, or
 * policy.tinker.rank, model.lora.target_modules as Tinker's train_attn / train_mlp groups, and
 * model.lora.train_unembed as it is: the same adapter shape as an embedded run of the config).
 */
export function tinkerLoraConfig(config: ResolvedConfig): LoraConfigWire & { rank: number } {
  const targets = new Set<string>(config.model.lora.target_modules);
  const group = (modules: readonly string[]) => modules.every((m) => targets.has(m));
  const train_attn = group(TINKER_ATTENTION_MODULES);
  const train_mlp = group(TINKER_MLP_MODULES);
  const covered = [...(train_attn ? TINKER_ATTENTION_MODULES : []), ...(train_mlp ? TINKER_MLP_MODULES : [])];
  if (covered.length !== targets.size) {
    throw new TroupeError('config', `model.lora.target_modules: a Tinker service trains whole groups (attention: ${TINKER_ATTENTION_MODULES.join(', ')}; MLP: ${TINKER_MLP_MODULES.join(', ')}), got ${config.model.lora.target_modules.join(', ')}; list one group or both`);
  }
  return { rank: config.policy.tinker?.rank ?? config.model.lora.r, train_attn, train_mlp, train_unembed: config.model.lora.train_unembed };
}

/**
 * The API has no LoRA alpha: each service picks its own. Troupe's server reports it in get_info
 * (`lora_alpha`, set by --lora-alpha); it must equal model.lora.alpha or the run would train a
 * different scale than an embedded one. A service that does not report it gets a warning.
 */
export function checkLoraAlpha(info: Record<string, unknown>, config: ResolvedConfig, log: (m: string) => void): void {
  const served = info.lora_alpha;
  const wanted = config.model.lora.alpha;
  if (typeof served !== 'number') {
    log(`warning: the Tinker service does not report its LoRA alpha; model.lora.alpha ${wanted} is not sent (the API has no field for it), so the adapters' scale is the service's choice`);
    return;
  }
  if (served !== wanted) {
    throw new TroupeError('config', `model.lora.alpha is ${wanted}, but the Tinker service at ${config.policy.tinker!.base_url} trains adapters with alpha ${served}; set model.lora.alpha=${served}, or restart it with troupe serve --tinker --lora-alpha ${wanted}`);
  }
}

/** A sampler of saved weights: a sampling session id, or a tinker:// path to open one on. */
export async function samplerOf(client: TinkerClient, saved: string): Promise<TinkerSampler> {
  return saved.startsWith('tinker://') ? client.createSampler({ modelPath: saved }) : new TinkerSampler(client, saved);
}
