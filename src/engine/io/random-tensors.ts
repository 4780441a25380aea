/**
 * Seeded random Llama parameters as plain tensors: N(0, std^2) for embeddings and linear
 * weights, ones for RMSNorm weights (the Hugging Face Llama initialisation). Used by IO and
 * sampling tests, and by anything that needs a model without the engine's LlamaModel.
 */
import { Rng } from '../../util/rng.js';
import type { LlamaConfig } from '../model/llama-config.js';
import { expectedTensorShapes } from './checkpoint.js';
import { shapeSize, type NamedTensor } from './types.js';

/** Fills `out` with N(0, std^2) draws (Box-Muller over the seeded Rng). */
export function fillNormal(out: Float32Array, rng: Rng, std: number): Float32Array {
  for (let i = 0; i < out.length; i += 2) {
    const u1 = 1 - rng.next(); // (0, 1]: log stays finite
    const u2 = rng.next();
    const radius = std * Math.sqrt(-2 * Math.log(u1));
    out[i] = radius * Math.cos(2 * Math.PI * u2);
    if (i + 1 < out.length) out[i + 1] = radius * Math.sin(2 * Math.PI * u2);
  }
  return out;
}

export function randomLlamaTensors(config: LlamaConfig, seed: number, std = 0.02): Map<string, NamedTensor> {
  const tensors = new Map<string, NamedTensor>();
  for (const [name, shape] of expectedTensorShapes(config)) {
    const data = new Float32Array(shapeSize(shape));
    if (name.endsWith('norm.weight')) data.fill(1);
    else fillNormal(data, Rng.derive(seed, 'init', name), std);
    tensors.set(name, { shape, data });
  }
  return tensors;
}
