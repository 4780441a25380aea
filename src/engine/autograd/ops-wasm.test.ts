import { createWasmKernels } from '../kernels/wasm-kernels.js';
import { runOpGradChecks } from './op-grad-checks.js';

runOpGradChecks('wasm (1 thread)', () => createWasmKernels({ threads: 1 }));
runOpGradChecks('wasm (plain SIMD)', () => createWasmKernels({ threads: 1, simd: 'plain' }));
