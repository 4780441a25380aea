/**
 * The Hugging Face Llama initialisation of one parameter: ones for RMSNorm weights, zeros
 * for biases, N(0, std^2) for everything else (std 0.02 is HF's `initializer_range`). Each tensor draws
 * from its own stream Rng.derive(seed, 'init', name), so a tensor's values do not depend on
 * which other tensors exist. The engine's fresh models (llama-params.ts) and the plain-tensor
 * models of IO tests (io/random-tensors.ts) both fill through here, so they agree bit for bit.
 */
import { Rng } from '../../util/rng.js';

/** Fills `out` with N(0, std^2) draws (Box-Muller over the seeded Rng) and returns it. */
export function fillNormal(out: Float32Array, rng: Rng, std: number): Float32Array {
  for (let i = 0; i < out.length; i += 2) {
    const radius = std * Math.sqrt(-2 * Math.log(1 - rng.next())); // 1 - [0, 1) is (0, 1]: log stays finite
    const angle = 2 * Math.PI * rng.next();
    out[i] = radius * Math.cos(angle);
    if (i + 1 < out.length) out[i + 1] = radius * Math.sin(angle);
  }
  return out;
}

/** Fills the parameter `name` with its initial values. */
export function initParameter(out: Float32Array, name: string, seed: number, std = 0.02): void {
  if (name.endsWith('norm.weight')) out.fill(1);
  else if (name.endsWith('.bias')) out.fill(0);
  else fillNormal(out, Rng.derive(seed, 'init', name), std);
}
