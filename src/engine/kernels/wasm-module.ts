import type { SimdFlavor } from './feature-detect.js';
import { WASM_PLAIN_BASE64, WASM_RELAXED_BASE64 } from './wasm-binary.generated.js';

/** The functions exported by the kernels module (see wat/*.wat); pointers are byte addresses. */
export interface KernelExports {
  set_tmp(ptr: number): void;
  matmul_block(a: number, b: number, c: number, m: number, n: number, k: number, flags: number,
    i0: number, i1: number, j0: number, j1: number, scratch: number, kc: number, mc: number, nc: number): void;
  matmul_rows(a: number, b: number, c: number, m: number, n: number, k: number, flags: number): void;
  add(a: number, b: number, out: number, n: number): void;
  mul(a: number, b: number, out: number, n: number): void;
  axpy(alpha: number, x: number, y: number, n: number): void;
  sum_squares(x: number, n: number): number;
  swiglu(gate: number, up: number, out: number, n: number): void;
  swiglu_backward(gate: number, up: number, dOut: number, dGate: number, dUp: number, n: number): void;
  adamw(p: number, g: number, m: number, v: number, n: number,
    lr: number, beta1: number, beta2: number, eps: number, decay: number, c1: number, c2: number): void;
  rms_norm(x: number, w: number, out: number, invRms: number, rows: number, d: number, eps: number): void;
  rms_norm_backward(x: number, w: number, invRms: number, dOut: number, dx: number, dw: number, rows: number, d: number): void;
  causal_softmax(s: number, rows: number, cols: number, offset: number, scale: number): void;
  causal_softmax_backward(p: number, dp: number, rows: number, cols: number, scale: number): void;
  log_softmax(x: number, rows: number, vocab: number, scratch: number): void;
  rope(x: number, positions: number, cosTab: number, sinTab: number, tokens: number, heads: number, headDim: number, sign: number): void;
  exp_array(x: number, out: number, n: number): void;
  log_f64(x: number): number;
}

/** matmul_block flag bits. */
export const TRANS_A = 1;
export const TRANS_B = 2;
export const ACCUMULATE = 4;
/** b holds bf16 bits (2 bytes an element), widened while packed or read (matmul-bf16.wat). */
export const BF16_B = 8;

const compiled = new Map<SimdFlavor, WebAssembly.Module>();

/** Compiles (once per process and flavour) the embedded kernels module. */
export function compileKernelModule(flavor: SimdFlavor): WebAssembly.Module {
  let module = compiled.get(flavor);
  if (!module) {
    const bytes = Buffer.from(flavor === 'relaxed' ? WASM_RELAXED_BASE64 : WASM_PLAIN_BASE64, 'base64');
    module = new WebAssembly.Module(bytes);
    compiled.set(flavor, module);
  }
  return module;
}
