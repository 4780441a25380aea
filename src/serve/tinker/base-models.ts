/**
 * The base models a Tinker server can load, by the name clients use as `base_model` (the
 * `--model` folders and hub ids, and every model of the Hugging Face cache by its hub id). A base
 * is loaded when a client first asks for it and then shared: every training model (LoRA
 * adapter) and sampler snapshot on it lives in the one LlamaModel's `adapters`, so the frozen
 * weights are in memory once.
 *
 *   const bases = new BaseModels(kernels, [{ name: 'tiny', dir: 'models/tiny' }]);
 *   bases.list();            // [{ model_name: 'tiny', max_context_length: 512 }]
 *   const base = bases.get('tiny');   // loads on first use
 */
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { listCachedModels, resolveModel } from '../../engine/hub/resolve-model.js';
import { readHubEnv } from '../../engine/hub/hub-env.js';
import type { HubEnv } from '../../engine/hub/types.js';
import { readJsonFile } from '../../engine/io/checkpoint.js';
import { loadModel } from '../../engine/io/model-checkpoint.js';
import type { Kernels } from '../../engine/kernels/types.js';
import type { LlamaModel } from '../../engine/model/llama-model.js';
import { Sampler } from '../../engine/sampling/generate.js';
import { loadStopTokenIds } from '../../engine/tokenizer/stop-tokens.js';
import type { Tokenizer } from '../../engine/tokenizer/types.js';
import { TroupeError } from '../../util/errors.js';
import { TinkerApiError } from './tinker-api-error.js';

export interface BaseModelSource {
  readonly name: string;
  readonly dir: string;
}

export interface LoadedBase {
  readonly name: string;
  readonly dir: string;
  readonly model: LlamaModel;
  readonly tokenizer: Tokenizer;
  readonly sampler: Sampler;
  /** The ids that end a sample whatever the request's `stop` (EOS, generation_config's eos ids). */
  readonly stopIds: readonly number[];
}

/**
 * A `--model` argument: `FOLDER` (served under the folder's name), `NAME=FOLDER`, or a hub
 * id `Org/Name` (served under that id; from the HF cache, downloaded into it when absent).
 */
export async function resolveModelArgument(arg: string, env: HubEnv = readHubEnv()): Promise<BaseModelSource> {
  const eq = arg.indexOf('=');
  const [name, where] = eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [existsSync(arg) ? basename(resolve(arg)) : arg, arg];
  const dir = await resolveModel(where, { env });
  if (!existsSync(join(dir, 'config.json'))) {
    throw new TroupeError('input', `--model ${arg}: ${join(dir, 'config.json')} does not exist; pass a model folder (config.json, model.safetensors, tokenizer.json), NAME=FOLDER, or a hub id`);
  }
  return { name, dir: resolve(dir) };
}

/** Every complete model of the HF cache, by hub id (what `--model` does not already name). */
export function cachedBaseModels(env: HubEnv = readHubEnv()): BaseModelSource[] {
  return listCachedModels(env)
    .filter((m) => m.complete)
    .map((m) => ({ name: m.id, dir: m.dir }));
}

export class BaseModels {
  private readonly kernels: Kernels;
  private readonly sources: ReadonlyMap<string, BaseModelSource>;
  private readonly loaded = new Map<string, LoadedBase>();

  constructor(kernels: Kernels, sources: readonly BaseModelSource[]) {
    this.kernels = kernels;
    this.sources = new Map(sources.map((s) => [s.name, s]));
  }

  /** Every loadable model, for get_server_capabilities. */
  list(): Array<{ model_name: string; max_context_length: number | null }> {
    return [...this.sources.values()].map((s) => {
      const config = readJsonFile(join(s.dir, 'config.json')) as { max_position_embeddings?: number };
      return { model_name: s.name, max_context_length: config.max_position_embeddings ?? null };
    });
  }

  names(): string[] {
    return [...this.sources.keys()];
  }

  /** The loaded base `name` (loading it now if needed); 404 naming the loadable ones otherwise. */
  get(name: string): LoadedBase {
    const found = this.loaded.get(name);
    if (found) return found;
    const source = this.sources.get(name);
    if (!source) throw new TinkerApiError(404, `unknown base model ${JSON.stringify(name)}; this server can load: ${this.names().join(', ')} (see get_server_capabilities)`);
    // Training happens only in LoRA adapters; the base is shared and never updated (so a bf16
    // checkpoint stays bf16 in memory).
    const { model, tokenizer } = loadModel(this.kernels, source.dir, { frozen: true });
    const base: LoadedBase = { name, dir: source.dir, model, tokenizer, sampler: new Sampler(model, tokenizer), stopIds: loadStopTokenIds(source.dir, tokenizer) };
    this.loaded.set(name, base);
    return base;
  }

  /** The bases loaded so far. */
  loadedBases(): LoadedBase[] {
    return [...this.loaded.values()];
  }

  dispose(): void {
    for (const b of this.loaded.values()) {
      b.sampler.dispose();
      b.model.dispose();
    }
    this.loaded.clear();
  }
}
