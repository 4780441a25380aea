/**
 * `engine:` how the embedded engine computes. `backend` picks the kernels: `native` (the C++
 * addon built at install: AVX-512 / AVX2), `wasm` (WebAssembly SIMD, always available), or
 * `auto`: TROUPE_BACKEND when set, else native when the addon loaded, else wasm. Both give
 * the same results to float tolerance (one conformance suite checks them).
 */
import { z } from 'zod';
import { BACKEND_NAMES } from '../engine/kernels/backend-name.js';

export const engineSection = z
  .strictObject({
    backend: z.enum(BACKEND_NAMES).default('auto'),
  })
  .prefault({});
