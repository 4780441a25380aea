/**
 * `engine:` how the embedded engine computes. `backend` picks the kernels: `native` (the C++
 * addon built at install: AVX-512 / AVX2), `wasm` (WebAssembly SIMD, always available), or
 * `auto`: TROUPE_BACKEND when set, else native when the addon loaded, else wasm. Both give
 * the same results to float tolerance (one conformance suite checks them). `bf16_matmul`:
 * how products with a bf16 weight treat the activations, `fast` (rounded to bf16, vdpbf16ps)
 * or `exact` (float32); unset = TROUPE_BF16_MATMUL, else fast (engine/kernels/bf16-matmul-mode.ts).
 */
import { z } from 'zod';
import { BACKEND_NAMES } from '../engine/kernels/backend-name.js';
import { BF16_MATMUL_MODES } from '../engine/kernels/bf16-matmul-mode.js';

export const engineSection = z
  .strictObject({
    backend: z.enum(BACKEND_NAMES).default('auto'),
    bf16_matmul: z.enum(BF16_MATMUL_MODES).optional(),
  })
  .prefault({});
