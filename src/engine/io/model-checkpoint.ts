/**
 * The bridge between the engine's LlamaModel and checkpoint folders: a model's parameters
 * (Tensor by HF name) become a TensorMap for saving, and a loaded folder becomes a model.
 *
 *   saveModel('runs/x/model', model, tokenizer);
 *   const { model, tokenizer } = loadModel(kernels, 'runs/x/model');
 *   saveModelAdapter('runs/x/adapters/plan', model, 'plan', { baseModelNameOrPath: '../../model' });
 *   loadModelAdapter(model, 'runs/x/adapters/plan', 'plan');
 */
import type { Kernels } from '../kernels/types.js';
import { LlamaModel } from '../model/llama-model.js';
import type { LoraAdapter } from '../model/lora.js';
import type { Tokenizer } from '../tokenizer/types.js';
import { loadCheckpoint, saveCheckpoint } from './checkpoint.js';
import { loadLoraAdapter, saveLoraAdapter } from './peft-adapter.js';
import type { NamedTensor } from './types.js';

function asTensorMap(parameters: ReadonlyMap<string, { shape: readonly number[]; data: Float32Array }>): Map<string, NamedTensor> {
  return new Map([...parameters].map(([name, t]) => [name, { shape: t.shape, data: t.data }]));
}

export function saveModel(dir: string, model: LlamaModel, tokenizer: Tokenizer, options: { overwrite?: boolean } = {}): void {
  saveCheckpoint(dir, { config: model.config, tensors: asTensorMap(model.parameters), tokenizer }, options);
}

export function loadModel(kernels: Kernels, dir: string): { model: LlamaModel; tokenizer: Tokenizer } {
  const { config, tensors, tokenizer } = loadCheckpoint(dir);
  return { model: LlamaModel.fromTensors(kernels, config, tensors), tokenizer };
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
  const adapter = model.addAdapter(name, { r: config.r, alpha: config.alpha, targetModules: config.targetModules }, 0);
  for (const [tensorName, tensor] of adapter.parameters) tensor.data.set((tensors.get(tensorName) as NamedTensor).data);
  return adapter;
}
