import { threadsFromEnv } from '../../util/thread-count.js';
import { BACKEND_NAMES, type BackendName } from './backend-name.js';
import { type Bf16MatmulMode, bf16MatmulFromEnv } from './bf16-matmul-mode.js';
import { choiceFromEnv } from './env-choice.js';
import { loadNativeBinding } from './native-binding.js';
import { createNativeKernels } from './native-kernels.js';
import type { Kernels } from './types.js';
import { createWasmKernels } from './wasm-kernels.js';

const shared = new Map<string, Promise<Kernels>>();

/** The thread count from TROUPE_THREADS, else the cores this process may use (util/thread-count.ts). */
export { threadsFromEnv };

/** Backend from TROUPE_BACKEND (auto, native or wasm; default auto). */
export function backendFromEnv(env: NodeJS.ProcessEnv = process.env): BackendName {
  return choiceFromEnv(env, 'TROUPE_BACKEND', BACKEND_NAMES, 'auto');
}

/**
 * The concrete backend `backend` means here: `auto` is TROUPE_BACKEND when set, else native
 * when the addon loaded, else wasm.
 */
export function resolveBackend(backend: BackendName, env: NodeJS.ProcessEnv = process.env): 'native' | 'wasm' {
  const chosen = backend === 'auto' ? backendFromEnv(env) : backend;
  if (chosen !== 'auto') return chosen;
  return loadNativeBinding(env).binding ? 'native' : 'wasm';
}

/**
 * One line for a run's log: which backend computes, and why not native when `auto` had to fall
 * back (npm hides the install script's warning, so this is where a user learns of it).
 */
export function describeKernels(kernels: Kernels, requested: BackendName = 'auto', env: NodeJS.ProcessEnv = process.env): string {
  const threads = `${kernels.threads} thread${kernels.threads === 1 ? '' : 's'}`;
  if (kernels.name.startsWith('native')) return `engine: native backend (${kernels.name.slice('native-'.length)}, ${threads})`;
  const load = loadNativeBinding(env);
  const why = requested === 'auto' && backendFromEnv(env) === 'auto' && load.binding === undefined ? `; native addon unavailable: ${load.reason}` : '';
  return `engine: WebAssembly backend (${kernels.name.slice('wasm-'.length)}, ${threads}${why})`;
}

/** New kernels of a backend (callers that need their own, such as benchmarks). */
export async function createKernels(options: { backend?: BackendName; threads?: number; bf16Matmul?: Bf16MatmulMode } = {}): Promise<Kernels> {
  const threads = options.threads ?? threadsFromEnv();
  const backend = resolveBackend(options.backend ?? 'auto');
  const { bf16Matmul } = options; // each backend falls back to TROUPE_BF16_MATMUL itself
  return backend === 'native' ? createNativeKernels({ threads, bf16Matmul }) : createWasmKernels({ threads, bf16Matmul });
}

/**
 * The process-wide kernels of a backend (default auto) and bf16 product mode (default
 * TROUPE_BF16_MATMUL, else fast), threads from TROUPE_THREADS, created on first use. Idle
 * helper threads never keep the process alive.
 */
export function getKernels(backend: BackendName = 'auto', bf16Matmul?: Bf16MatmulMode): Promise<Kernels> {
  const resolved = resolveBackend(backend);
  const mode = bf16Matmul ?? bf16MatmulFromEnv();
  const key = `${resolved} ${mode}`;
  let kernels = shared.get(key);
  if (!kernels) {
    kernels = createKernels({ backend: resolved, bf16Matmul: mode });
    shared.set(key, kernels);
  }
  return kernels;
}
