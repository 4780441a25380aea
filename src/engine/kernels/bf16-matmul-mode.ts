/**
 * How a matmul with a bf16 weight (a frozen base stored as bf16) treats the float32
 * activations it multiplies (config `engine.bf16_matmul`, TROUPE_BF16_MATMUL):
 *
 * - `fast` (default): the activations are rounded to bf16 (to nearest even, subnormals to
 *   zero) so every product is bf16 x bf16, exact in float32, summed in float32. This is what
 *   `vdpbf16ps` computes (AVX512_BF16: about twice the float32 FMA rate); every other
 *   backend and instruction set rounds the same way, so all agree to summation order.
 *   transformers' own bf16 run rounds activations too (and much more: every op in bf16).
 * - `exact`: the weight is widened to float32 and multiplied with the activations as they
 *   are: the float32 product of the widened weight (what a float32 PyTorch run of the
 *   bf16 checkpoint computes; the parity fixtures check it to ~1e-6).
 *
 * Sampling and training share one Kernels object, so their log-probs use the same mode.
 */
import { choiceFromEnv } from './env-choice.js';

export const BF16_MATMUL_MODES = ['fast', 'exact'] as const;
export type Bf16MatmulMode = (typeof BF16_MATMUL_MODES)[number];

/** The mode from TROUPE_BF16_MATMUL (default fast). */
export function bf16MatmulFromEnv(env: NodeJS.ProcessEnv = process.env): Bf16MatmulMode {
  return choiceFromEnv(env, 'TROUPE_BF16_MATMUL', BF16_MATMUL_MODES, 'fast');
}
