import { checkGatherBackward, checkLogSoftmax, checkMatmul, checkRmsNorm, checkRmsNormBackward, checkRope, checkRows, checkSameLength } from './check-shapes.js';
import { roundToBf16 } from '../io/half-float.js';
import { type Bf16MatmulMode, bf16MatmulFromEnv } from './bf16-matmul-mode.js';
import type { Kernels, MatmulArgs, MatmulBf16Args } from './types.js';

/**
 * Plain TypeScript kernels: straight loops with float64 accumulation, written to be
 * obviously correct rather than fast. The tests and the conformance suite trust these.
 */
export function createReferenceKernels(options: { bf16Matmul?: Bf16MatmulMode } = {}): Kernels {
  return {
    name: 'reference',
    threads: 1,
    bf16Matmul: options.bf16Matmul ?? bf16MatmulFromEnv(),
    alloc: (length) => new Float32Array(length),
    free: () => {},
    matmul,
    matmulBf16,
    add(a, b, out) {
      checkSameLength('add', { a, b, out });
      for (let i = 0; i < out.length; i++) out[i] = a[i]! + b[i]!;
    },
    mul(a, b, out) {
      checkSameLength('mul', { a, b, out });
      for (let i = 0; i < out.length; i++) out[i] = a[i]! * b[i]!;
    },
    axpy(alpha, x, y) {
      checkSameLength('axpy', { x, y });
      for (let i = 0; i < y.length; i++) y[i] = y[i]! + alpha * x[i]!;
    },
    sumSquares(x) {
      let sum = 0;
      for (let i = 0; i < x.length; i++) sum += x[i]! * x[i]!;
      return sum;
    },
    rmsNorm,
    rmsNormBackward,
    causalSoftmax,
    causalSoftmaxBackward,
    swiglu(gate, up, out) {
      checkSameLength('swiglu', { gate, up, out });
      for (let i = 0; i < out.length; i++) {
        const g = gate[i]!;
        out[i] = (g / (1 + Math.exp(-g))) * up[i]!;
      }
    },
    swigluBackward(gate, up, dOut, dGate, dUp) {
      checkSameLength('swigluBackward', { gate, up, dOut, dGate, dUp });
      for (let i = 0; i < gate.length; i++) {
        const g = gate[i]!;
        const sig = 1 / (1 + Math.exp(-g));
        const d = dOut[i]!;
        const u = up[i]!;
        dUp[i] = d * g * sig;
        // d silu(g)/dg = sig * (1 + g * (1 - sig))
        dGate[i] = d * u * sig * (1 + g * (1 - sig));
      }
    },
    rope,
    logSoftmax,
    logSoftmaxGatherBackward,
    adamw,
  };
}

function matmul(args: MatmulArgs): void {
  checkMatmul(args);
  const { a, b, c, m, n, k, transA = false, transB = false, accumulate = false } = args;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) {
        const av = transA ? a[p * m + i]! : a[i * k + p]!;
        const bv = transB ? b[j * k + p]! : b[p * n + j]!;
        sum += av * bv;
      }
      c[i * n + j] = accumulate ? c[i * n + j]! + sum : sum;
    }
  }
}

const widenScratch = new Float32Array(1);
const widenBits = new Uint32Array(widenScratch.buffer);

/** The float32 value of one bf16 bit pattern (exact: it becomes the top 16 bits). */
function widen(bits: number): number {
  widenBits[0] = bits << 16;
  return widenScratch[0]!;
}

function matmulBf16(args: MatmulBf16Args): void {
  checkMatmul(args, 'matmulBf16');
  const { b, c, m, n, k, transB = false, accumulate = false } = args;
  let a = args.a;
  if (args.roundA) roundToBf16(a.subarray(0, m * k), (a = new Float32Array(m * k)));
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += a[i * k + p]! * widen(transB ? b[j * k + p]! : b[p * n + j]!);
      c[i * n + j] = accumulate ? c[i * n + j]! + sum : sum;
    }
  }
}

function rmsNorm(x: Float32Array, weight: Float32Array, out: Float32Array, invRms: Float32Array, rows: number, d: number, eps: number): void {
  checkRmsNorm(x, weight, out, invRms, rows, d);
  for (let r = 0; r < rows; r++) {
    let sum = 0;
    for (let i = 0; i < d; i++) sum += x[r * d + i]! ** 2;
    const inv = 1 / Math.sqrt(sum / d + eps);
    invRms[r] = inv;
    for (let i = 0; i < d; i++) out[r * d + i] = x[r * d + i]! * inv * weight[i]!;
  }
}

function rmsNormBackward(x: Float32Array, weight: Float32Array, invRms: Float32Array, dOut: Float32Array, dx: Float32Array, dWeight: Float32Array, rows: number, d: number): void {
  checkRmsNormBackward(x, weight, invRms, dOut, dx, dWeight, rows, d);
  for (let r = 0; r < rows; r++) {
    const inv = invRms[r]!;
    // y_i = x_i * inv * w_i with inv = (mean(x^2) + eps)^-1/2, so
    // dx_i = inv * w_i * g_i - x_i * inv^3 / d * sum_j(w_j * g_j * x_j).
    let dot = 0;
    for (let i = 0; i < d; i++) dot += weight[i]! * dOut[r * d + i]! * x[r * d + i]!;
    const coef = (inv * inv * inv * dot) / d;
    for (let i = 0; i < d; i++) {
      const xi = x[r * d + i]!;
      const gi = dOut[r * d + i]!;
      dx[r * d + i] = inv * weight[i]! * gi - xi * coef;
      dWeight[i] = dWeight[i]! + gi * xi * inv;
    }
  }
}

function causalSoftmax(scores: Float32Array, rows: number, cols: number, offset: number, scale: number): void {
  checkRows('causalSoftmax', 'scores', scores, rows, cols);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    const last = Math.min(cols - 1, r + offset); // inclusive; < 0 means the row sees nothing
    let max = -Infinity;
    for (let j = 0; j <= last; j++) max = Math.max(max, scores[base + j]! * scale);
    let sum = 0;
    for (let j = 0; j <= last; j++) sum += Math.exp(scores[base + j]! * scale - max);
    for (let j = 0; j < cols; j++) {
      scores[base + j] = j <= last ? Math.exp(scores[base + j]! * scale - max) / sum : 0;
    }
  }
}

function causalSoftmaxBackward(p: Float32Array, dP: Float32Array, rows: number, cols: number, scale: number): void {
  checkRows('causalSoftmaxBackward', 'p', p, rows, cols);
  checkRows('causalSoftmaxBackward', 'dP', dP, rows, cols);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    let dot = 0;
    for (let j = 0; j < cols; j++) dot += dP[base + j]! * p[base + j]!;
    for (let j = 0; j < cols; j++) dP[base + j] = scale * p[base + j]! * (dP[base + j]! - dot);
  }
}

function rope(x: Float32Array, positions: Int32Array, tokens: number, heads: number, headDim: number, invFreq: Float32Array, inverse: boolean): void {
  checkRope(x, positions, invFreq, tokens, heads, headDim);
  const half = headDim >> 1;
  const sign = inverse ? -1 : 1;
  for (let t = 0; t < tokens; t++) {
    for (let i = 0; i < half; i++) {
      const angle = sign * positions[t]! * invFreq[i]!;
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      for (let h = 0; h < heads; h++) {
        const base = (t * heads + h) * headDim;
        const x0 = x[base + i]!;
        const x1 = x[base + i + half]!;
        x[base + i] = x0 * cos - x1 * sin;
        x[base + i + half] = x1 * cos + x0 * sin;
      }
    }
  }
}

/** Plain loops (also the WASM backend's: one pass of exp, no product to speed up). */
export function logSoftmaxGatherBackward(logp: Float32Array, rows: number, vocab: number, targets: Int32Array, g: Float32Array): void {
  checkGatherBackward(logp, rows, vocab, targets, g);
  for (let r = 0; r < rows; r++) {
    const base = r * vocab;
    const gr = g[r]!;
    for (let j = base; j < base + vocab; j++) logp[j] = -gr * Math.exp(logp[j]!);
    logp[base + targets[r]!] = logp[base + targets[r]!]! + gr;
  }
}

/** entropy[r] = -sum_j exp(logp[r, j]) logp[r, j] over rows x vocab log-probabilities. */
export function rowEntropies(logp: Float32Array, rows: number, vocab: number, entropy: Float32Array): void {
  for (let r = 0; r < rows; r++) {
    let h = 0;
    for (let j = r * vocab; j < (r + 1) * vocab; j++) h -= Math.exp(logp[j]!) * logp[j]!;
    entropy[r] = h;
  }
}

function logSoftmax(logits: Float32Array, rows: number, vocab: number, entropy?: Float32Array): void {
  checkLogSoftmax(logits, rows, vocab, entropy);
  for (let r = 0; r < rows; r++) {
    const base = r * vocab;
    let max = -Infinity;
    for (let j = 0; j < vocab; j++) max = Math.max(max, logits[base + j]!);
    let sum = 0;
    for (let j = 0; j < vocab; j++) sum += Math.exp(logits[base + j]! - max);
    const logSum = max + Math.log(sum);
    for (let j = 0; j < vocab; j++) logits[base + j] = logits[base + j]! - logSum;
  }
  if (entropy) rowEntropies(logits, rows, vocab, entropy);
}

function adamw(param: Float32Array, grad: Float32Array, m: Float32Array, v: Float32Array, options: {
  lr: number; beta1: number; beta2: number; eps: number; weightDecay: number; step: number;
}): void {
  checkSameLength('adamw', { param, grad, m, v });
  const { lr, beta1, beta2, eps, weightDecay, step } = options;
  const correction1 = 1 - Math.pow(beta1, step);
  const correction2 = 1 - Math.pow(beta2, step);
  for (let i = 0; i < param.length; i++) {
    const g = grad[i]!;
    m[i] = beta1 * m[i]! + (1 - beta1) * g;
    v[i] = beta2 * v[i]! + (1 - beta2) * g * g;
    const mHat = m[i]! / correction1;
    const vHat = v[i]! / correction2;
    // Decoupled decay (Loshchilov & Hutter): shrink the weight, then take the Adam step.
    const decayed = param[i]! * (1 - lr * weightDecay);
    param[i] = decayed - (lr * mHat) / (Math.sqrt(vHat) + eps);
  }
}
