import { TroupeError } from '../../util/errors.js';
import type { Kernels } from './types.js';
import { createWasmKernels } from './wasm-kernels.js';

let shared: Promise<Kernels> | undefined;

/** Thread count from TROUPE_THREADS (1 or 2; default 2). */
export function threadsFromEnv(env: NodeJS.ProcessEnv = process.env): 1 | 2 {
  const value = env.TROUPE_THREADS;
  if (value === undefined || value === '') return 2;
  if (value === '1' || value === '2') return Number(value) as 1 | 2;
  throw new TroupeError('config', `TROUPE_THREADS must be 1 or 2, got '${value}'; unset it to use 2 threads`);
}

/**
 * The process-wide default kernels (WASM SIMD, threads from TROUPE_THREADS), created on
 * first use. Its idle worker does not keep the process alive.
 */
export function getKernels(): Promise<Kernels> {
  shared ??= createWasmKernels({ threads: threadsFromEnv() });
  return shared;
}
