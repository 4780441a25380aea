/**
 * Seeded random Llama parameters as plain tensors, initialised exactly like the engine's fresh
 * models (model/init-parameter.ts) but with a settable std. Used by IO and sampling tests, and
 * by anything that needs a model without the engine's LlamaModel.
 */
import type { LlamaConfig } from '../model/llama-config.js';
import { initParameter } from '../model/init-parameter.js';
import { expectedTensorShapes } from './checkpoint.js';
import { shapeSize, type NamedTensor } from './types.js';

export { fillNormal } from '../model/init-parameter.js';

export function randomLlamaTensors(config: LlamaConfig, seed: number, std = 0.02): Map<string, NamedTensor> {
  const tensors = new Map<string, NamedTensor>();
  for (const [name, shape] of expectedTensorShapes(config)) {
    const data = new Float32Array(shapeSize(shape));
    initParameter(data, name, seed, std);
    tensors.set(name, { shape, data });
  }
  return tensors;
}
