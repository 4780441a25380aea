/**
 * What `troupe serve DIR_OR_RUN` serves: one base model and each of its LoRA adapters.
 *
 *   model folder   DIR/config.json, model.safetensors, tokenizer.json
 *                  [tokenizer_config.json with chat_template] [adapters/<role>/ PEFT folders]
 *   run folder     DIR/checkpoints/step-N/...: the newest step is served (see
 *                  `resolveModelDir`, the one place that knows the run layout)
 *
 * Names: the base is the folder's name (a run's name for a run folder) unless `name` is
 * given; adapter `<role>` is served as `<base>:<role>`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { loadModel, loadModelAdapter } from '../engine/io/model-checkpoint.js';
import type { Kernels } from '../engine/kernels/types.js';
import { TroupeError } from '../util/errors.js';
import { loadChatTemplate } from './chat-template.js';
import type { ServedModel } from './types.js';

export interface ModelLocation {
  /** Folder with config.json, model.safetensors and tokenizer.json. */
  readonly modelDir: string;
  /** Folder whose sub-folders are PEFT adapters, when there is one. */
  readonly adaptersDir?: string;
  /** Default served name. */
  readonly name: string;
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The newest `step-N` folder under `checkpoints/`, by N. */
export function newestCheckpoint(checkpointsDir: string): string {
  const steps = readdirSync(checkpointsDir)
    .map((entry) => ({ entry, step: /^step-(\d+)$/.exec(entry)?.[1] }))
    .filter((x): x is { entry: string; step: string } => x.step !== undefined && isDir(join(checkpointsDir, x.entry)))
    .sort((a, b) => Number(b.step) - Number(a.step));
  if (steps.length === 0) throw new TroupeError('checkpoint', `${checkpointsDir} holds no step-N folders; train a run first or pass a model folder`);
  return join(checkpointsDir, steps[0]!.entry);
}

/** Finds the model (and adapters) to serve in a model folder or a run folder. */
export function resolveModelDir(dir: string): ModelLocation {
  const root = resolve(dir);
  if (!isDir(root)) throw new TroupeError('input', `${dir} is not a folder; pass a model folder (with config.json) or a run folder (with checkpoints/)`);
  let base = root;
  if (!existsSync(join(root, 'config.json')) && isDir(join(root, 'checkpoints'))) base = newestCheckpoint(join(root, 'checkpoints'));
  // A checkpoint may hold the model itself or a model/ sub-folder beside adapters/.
  const modelDir = [base, join(base, 'model')].find((d) => existsSync(join(d, 'config.json')));
  if (modelDir === undefined) {
    throw new TroupeError('checkpoint', `${base} has no config.json (nor model/config.json); pass a model folder written by \`troupe model init\` or a training run`);
  }
  const adaptersDir = [join(modelDir, 'adapters'), join(base, 'adapters')].find(isDir);
  return { modelDir, name: basename(root), ...(adaptersDir ? { adaptersDir } : {}) };
}

/** Loads the base model and every adapter folder; the base comes first. */
export function loadServedModels(kernels: Kernels, dir: string, options: { name?: string } = {}): ServedModel[] {
  const location = resolveModelDir(dir);
  const name = options.name ?? location.name;
  if (name.length === 0 || name.includes(':')) throw new TroupeError('input', `model name ${JSON.stringify(name)} must be non-empty and have no ':' (it separates base and adapter)`);
  const { model, tokenizer } = loadModel(kernels, location.modelDir);
  const chatTemplate = loadChatTemplate(location.modelDir, tokenizer);
  const served: ServedModel[] = [{ name, model, tokenizer, chatTemplate, root: location.modelDir }];
  if (location.adaptersDir !== undefined) {
    const roles = readdirSync(location.adaptersDir).filter((r) => existsSync(join(location.adaptersDir!, r, 'adapter_config.json'))).sort();
    for (const role of roles) {
      loadModelAdapter(model, join(location.adaptersDir, role), role);
      served.push({ name: `${name}:${role}`, model, tokenizer, chatTemplate, adapter: role, root: join(location.adaptersDir, role) });
    }
  }
  return served;
}
