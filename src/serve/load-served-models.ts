/**
 * What `troupe serve DIR_OR_RUN` serves: base models and LoRA adapters on them, by name.
 *
 *   model folder   DIR/config.json, model.safetensors, tokenizer.json
 *                  [chat_template.jinja or tokenizer_config.json with chat_template]
 *                  [generation_config.json with eos_token_id(s)] [adapters/<role>/ PEFT folders]
 *                  -> `<name>` and `<name>:<role>` per adapter
 *   run folder     DIR/checkpoints/step-N/ (the newest, see `newestCheckpoint`):
 *                  policies/<id>/ full models          -> `<run>:<id>`
 *                  adapters/<id>/ PEFT on the run's base -> `<run>` (the base) and `<run>:<id>`
 *
 * `resolveServeLayout` is the one place that knows these layouts.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseHubId } from '../engine/hub/hub-id.js';
import { findModelFolder } from '../engine/hub/resolve-model.js';
import { readJsonFile } from '../engine/io/checkpoint.js';
import { loadModel, loadModelAdapter } from '../engine/io/model-checkpoint.js';
import type { Kernels } from '../engine/kernels/types.js';
import { loadChatTemplate } from '../engine/tokenizer/chat-template.js';
import { loadStopTokenIds } from '../engine/tokenizer/stop-tokens.js';
import { listCheckpoints } from '../train/checkpoint-store.js';
import { TroupeError } from '../util/errors.js';
import type { ServedModel } from './types.js';

export interface ServeLayout {
  /** Full model folders, by served name. */
  readonly bases: ReadonlyArray<{ readonly name: string; readonly dir: string }>;
  /** PEFT adapter folders, by served name, with the name of the base they apply to. */
  readonly adapters: ReadonlyArray<{ readonly name: string; readonly dir: string; readonly role: string; readonly base: string }>;
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function subfolders(dir: string, marker: string): string[] {
  return isDir(dir) ? readdirSync(dir).filter((d) => existsSync(join(dir, d, marker))).sort() : [];
}

/** The newest checkpoint folder of a run (the training layer owns the layout). */
export function newestCheckpoint(runDir: string): string {
  const all = listCheckpoints(runDir);
  if (all.length === 0) throw new TroupeError('checkpoint', `${join(runDir, 'checkpoints')} holds no finished step-N checkpoint; train the run further or pass a model folder`);
  return all[all.length - 1]!.dir;
}

/** The base model folder an adapter of a run applies to. */
function adapterBase(adapterDir: string, runDir: string): string {
  const config = readJsonFile(join(adapterDir, 'adapter_config.json')) as { base_model_name_or_path?: unknown };
  const named = typeof config.base_model_name_or_path === 'string' ? config.base_model_name_or_path : undefined;
  // A hub id (adapters of runs on Org/Name) is looked up in the Hugging Face cache, never downloaded here.
  const hubId = named !== undefined && !existsSync(resolve(adapterDir, named)) && parseHubId(named) !== undefined ? named : undefined;
  const candidates = [named === undefined ? undefined : hubId === undefined ? resolve(adapterDir, named) : findModelFolder(hubId), join(runDir, 'base')];
  const found = candidates.find((d) => d !== undefined && existsSync(join(d, 'config.json')));
  if (found === undefined) {
    throw new TroupeError('checkpoint', `the base model of adapter ${adapterDir} is not at ${candidates.filter(Boolean).join(' nor ')}; copy the base model folder there (the run's model.path)`);
  }
  return found;
}

/** Finds what to serve in a model folder or a run folder; `name` is the base name. */
export function resolveServeLayout(dir: string, name: string = basename(resolve(dir))): ServeLayout {
  const root = resolve(dir);
  if (!isDir(root)) throw new TroupeError('input', `${dir} is not a folder; pass a model folder (with config.json) or a run folder (with checkpoints/)`);
  if (name.length === 0 || name.includes(':')) throw new TroupeError('input', `model name ${JSON.stringify(name)} must be non-empty and have no ':' (it separates base and role)`);
  const baseDirs = new Map<string, string>();
  if (existsSync(join(root, 'config.json'))) {
    baseDirs.set(name, root);
    const adapters = subfolders(join(root, 'adapters'), 'adapter_config.json').map((role) => ({ name: `${name}:${role}`, dir: join(root, 'adapters', role), role, base: name }));
    return { bases: [{ name, dir: root }], adapters };
  }
  if (!isDir(join(root, 'checkpoints'))) {
    throw new TroupeError('checkpoint', `${dir} has neither config.json (a model folder) nor checkpoints/ (a run folder); pass a folder written by \`troupe model init\` or \`troupe train\``);
  }
  const step = newestCheckpoint(root);
  const bases = subfolders(join(step, 'policies'), 'config.json').map((id) => ({ name: `${name}:${id}`, dir: join(step, 'policies', id) }));
  const adapters = subfolders(join(step, 'adapters'), 'adapter_config.json').map((id) => {
    const adapterDir = join(step, 'adapters', id);
    return { name: `${name}:${id}`, dir: adapterDir, role: id, base: adapterBase(adapterDir, root) };
  });
  for (const b of bases) baseDirs.set(b.name, b.dir);
  // Adapters name their base by folder; the first such base is served under the run's name.
  const adapterBases = [...new Set(adapters.map((a) => a.base))];
  adapterBases.forEach((baseDir, i) => {
    const baseName = i === 0 ? name : `${name}:base-${i}`;
    baseDirs.set(baseName, baseDir);
    bases.push({ name: baseName, dir: baseDir });
  });
  const named = adapters.map((a) => ({ ...a, base: [...baseDirs].find(([, d]) => d === a.base)![0] }));
  if (bases.length === 0) throw new TroupeError('checkpoint', `${step} holds no policies/<id>/ model folders nor adapters/<id>/ adapter folders`);
  return { bases, adapters: named };
}

/** Loads every base model and adapter of the layout; bases first, then adapters, by name. */
export function loadServedModels(kernels: Kernels, dir: string, options: { name?: string } = {}): ServedModel[] {
  const layout = resolveServeLayout(dir, options.name);
  const served: ServedModel[] = [];
  const byName = new Map<string, ServedModel>();
  for (const base of layout.bases) {
    const { model, tokenizer } = loadModel(kernels, base.dir, { frozen: true }); // serving only: a bf16 checkpoint stays bf16
    const entry: ServedModel = { name: base.name, model, tokenizer, chatTemplate: loadChatTemplate(base.dir, tokenizer), stopIds: loadStopTokenIds(base.dir, tokenizer), root: base.dir };
    served.push(entry);
    byName.set(base.name, entry);
  }
  for (const a of layout.adapters) {
    const base = byName.get(a.base)!;
    loadModelAdapter(base.model, a.dir, a.role);
    served.push({ ...base, name: a.name, adapter: a.role, parent: base.name, root: a.dir });
  }
  return served;
}
