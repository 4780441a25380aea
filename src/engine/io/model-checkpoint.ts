/**
 * The bridge between the engine's LlamaModel and checkpoint folders: a model's parameters
 * (Tensor by HF name) become a TensorMap for saving, and a loaded folder becomes a model.
 *
 *   saveModel('runs/x/model', model, tokenizer);
 *   const { model, tokenizer } = loadModel(kernels, 'runs/x/model', { frozen: true });  // load-model.ts
 *   saveModelAdapter('runs/x/adapters/plan', model, 'plan', { baseModelNameOrPath: '../../model' });
 *   loadModelAdapter(model, 'runs/x/adapters/plan', 'plan');
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LlamaModel } from '../model/llama-model.js';
import type { LoraAdapter } from '../model/lora.js';
import type { Tokenizer } from '../tokenizer/types.js';
import type { Tensor } from '../tensor.js';
import { weightToF32 } from '../weight-ops.js';
import { GENERATION_CONFIG_FILE, readJsonFile, saveCheckpoint } from './checkpoint.js';
import { loadLoraAdapter, saveLoraAdapter } from './peft-adapter.js';
import type { NamedTensor } from './types.js';

export { loadModel, type LoadModelOptions } from './load-model.js';

/** Parameters as plain tensors; bf16 weights are widened (exactly) and saved back as BF16. */
function asTensorMap(parameters: ReadonlyMap<string, Tensor>): Map<string, NamedTensor> {
  return new Map([...parameters].map(([name, t]) => [name, t.dtype === 'bf16' ? { shape: t.shape, data: weightToF32(t), dtype: 'BF16' as const } : { shape: t.shape, data: t.data }]));
}

/**
 * Saves `model` as a model folder. `trainedFrom` is the folder it was loaded from: its
 * generation_config.json is carried over, so the saved model stops where the original does.
 */
export function saveModel(dir: string, model: LlamaModel, tokenizer: Tokenizer, options: { overwrite?: boolean; trainedFrom?: string } = {}): void {
  const source = options.trainedFrom === undefined ? undefined : join(options.trainedFrom, GENERATION_CONFIG_FILE);
  const generationConfig = source !== undefined && existsSync(source) ? readJsonFile(source) : undefined;
  saveCheckpoint(dir, { config: model.config, tensors: asTensorMap(model.parameters), tokenizer, generationConfig }, { overwrite: options.overwrite });
}

/** Saves adapter `name` of `model` in the PEFT layout. */
export function saveModelAdapter(dir: string, model: LlamaModel, name: string, options: { baseModelNameOrPath: string; overwrite?: boolean }): void {
  const adapter = model.adapters.get(name);
  if (adapter === undefined) {
    // Let the model produce its standard "unknown adapter" error listing the known ones.
    model.trainableParameters(name);
    return;
  }
  saveLoraAdapter(dir, { config: { ...adapter.config, baseModelNameOrPath: options.baseModelNameOrPath }, tensors: asTensorMap(adapter.parameters) }, model.config, { overwrite: options.overwrite });
}

/** Loads a PEFT adapter folder into `model` under `name` (which must not exist yet). */
export function loadModelAdapter(model: LlamaModel, dir: string, name: string): LoraAdapter {
  const { config, tensors } = loadLoraAdapter(dir, model.config);
  const adapter = model.addAdapter(name, { r: config.r, alpha: config.alpha, targetModules: config.targetModules, ...(config.rslora === true ? { rslora: true } : {}), ...(config.head === true ? { head: true } : {}) }, 0);
  for (const [tensorName, tensor] of adapter.parameters) tensor.data.set((tensors.get(tensorName) as NamedTensor).data);
  return adapter;
}
