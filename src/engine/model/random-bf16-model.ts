/**
 * Real-size models without a download: Qwen3-0.6B's configuration (the numbers of its
 * config.json) and a model of any configuration with random bf16 weights, held the way a
 * frozen bf16 checkpoint loads (loadModel(..., { frozen: true })). For tests and benchmarks
 * whose cost and numerics depend on the shapes, not on what the weights know.
 *
 *   const model = randomBf16Model(kernels, qwen3Shape({ layers: 2 }), 1);   // 2 of the 28 layers
 */
import { Rng } from '../../util/rng.js';
import type { Kernels } from '../kernels/types.js';
import { Tensor } from '../tensor.js';
import { llamaConfig, type LlamaConfig } from './llama-config.js';
import { LlamaModel } from './llama-model.js';
import { llamaParameterShapes } from './llama-params.js';

/** Qwen3-0.6B: 28 layers, hidden 1024, 16 heads of 128 (8 kv heads), intermediate 3072, 151,936 rows, tied. */
export function qwen3Shape(options: { layers?: number; vocab?: number } = {}): LlamaConfig {
  return {
    ...llamaConfig({
      hidden: 1024,
      layers: options.layers ?? 28,
      heads: 16,
      kvHeads: 8,
      headDim: 128,
      intermediate: 3072,
      vocab: options.vocab ?? 151936,
      tied: true,
      context: 40960,
      ropeTheta: 1e6,
      rmsNormEps: 1e-6,
    }),
    architectures: ['Qwen3ForCausalLM'],
    model_type: 'qwen3',
    bos_token_id: 151643,
    eos_token_id: 151645,
  };
}

/**
 * A frozen model of `config` with random bf16 matrices (sign and magnitude uniform over
 * [2^-7, 2^-5), a standard deviation near the usual 0.02 initialisation) and norms of 1.
 * Deterministic in `seed`; two 16-bit values per random draw keep 600M values to seconds.
 */
export function randomBf16Model(kernels: Kernels, config: LlamaConfig, seed: number): LlamaModel {
  const rng = new Rng(seed);
  const parameters = new Map<string, Tensor>();
  for (const [name, shape] of llamaParameterShapes(config)) {
    if (shape.length === 2) {
      const t = Tensor.bf16(kernels, shape);
      const bits = t.bits;
      for (let i = 0; i < bits.length; i += 2) {
        const r = rng.nextU32();
        // 0x80ff keeps the sign, the lowest exponent bit and 7 mantissa bits; 0x3c00 sets the
        // exponent to 2^-7 or 2^-6.
        bits[i] = (r & 0x80ff) | 0x3c00;
        if (i + 1 < bits.length) bits[i + 1] = ((r >>> 16) & 0x80ff) | 0x3c00;
      }
      parameters.set(name, t);
    } else {
      const t = Tensor.zeros(kernels, shape);
      t.data.fill(1);
      parameters.set(name, t);
    }
  }
  return LlamaModel.fromParameters(kernels, config, parameters);
}
