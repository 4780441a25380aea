import { Option } from 'commander';
import { BACKEND_NAMES, type BackendName } from '../engine/kernels/backend-name.js';

/** `--backend auto|native|wasm`, the same on every command that runs a model. */
export function backendOption(): Option {
  return new Option('--backend <name>', 'kernels: native (C++ addon), wasm (WebAssembly), or auto (native when built; default)').choices(BACKEND_NAMES);
}

/** --backend on a command that reads a run config: the same as --set engine.backend=NAME. */
export function withBackendSet(set: readonly string[], backend: BackendName | undefined): string[] {
  return backend === undefined ? [...set] : [...set, `engine.backend=${backend}`];
}
