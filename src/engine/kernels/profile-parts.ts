/**
 * The kernel profile (profile-kernels.ts) summed into the parts of a model step that
 * a profile reports: projections, attention, LM head + log-softmax, LoRA, sampling (the native
 * backend's; TypeScript sampling is JavaScript), element-wise, optimizer, memory, and the
 * JavaScript between the calls; each with its seconds, its GFLOP/s and that
 * rate's share of the machine's measured peak (measurePeak).
 *
 *   const profiled = profileKernels(kernels, 'cpu');
 *   ... work on profiled.kernels ...
 *   console.log(formatParts(profileParts(profiled.rows, modelMatmuls(config, 16), totalMs), peak));
 *
 * A matmul is recognised by its shape: y = x W^T is (rows, out, in), dx = dy W (rows, in, out)
 * and dW = dy^T x (out, in, rows), so whichever order, two of its sizes are a weight's two
 * sides. The head's weight is (vocab, hidden), a LoRA factor's (r, in) or (out, r).
 */
import type { LlamaConfig } from '../model/llama-config.js';
import { headDim } from '../model/llama-config.js';
import { Rng } from '../../util/rng.js';
import type { ProfileRow } from './profile-kernels.js';
import type { Kernels } from './types.js';

export type PartName = 'projections' | 'attention' | 'lm head + log-softmax' | 'lora' | 'sampling' | 'element-wise' | 'optimizer' | 'memory' | 'other matmuls' | 'javascript (outside kernels)';

export interface PartRow {
  readonly part: PartName;
  readonly ms: number;
  readonly calls: number;
  /** Floating-point operations counted (matmuls only; 0 where not counted). */
  readonly flop: number;
}

/** Weight shapes (out, in) of a model, by the part that owns them. */
export interface ModelMatmuls {
  readonly head: readonly (readonly [number, number])[];
  readonly lora: readonly (readonly [number, number])[];
  readonly projections: readonly (readonly [number, number])[];
  /** Head size: a product with it as a side and no weight's shape is attention's (decoding runs it as matmuls). */
  readonly headDim: number;
}

/** The weight shapes of `config`'s layers, head and (rank `loraRank`) adapters. */
export function modelMatmuls(config: LlamaConfig, loraRank?: number): ModelMatmuls {
  const hd = headDim(config);
  const h = config.hidden_size;
  const q = config.num_attention_heads * hd;
  const kv = config.num_key_value_heads * hd;
  const i = config.intermediate_size;
  const projections: [number, number][] = [[q, h], [kv, h], [h, q], [i, h], [h, i]];
  const lora: [number, number][] = loraRank === undefined ? [] : [h, q, kv, i].map((n) => [loraRank, n] as [number, number]);
  return { head: [[config.vocab_size, h]], lora, projections, headDim: hd };
}

const ELEMENTWISE = new Set(['add', 'mul', 'axpy', 'rmsNorm', 'rmsNormBackward', 'swiglu', 'swigluBackward', 'rope']);
const HEAD = new Set(['logSoftmax', 'logSoftmaxGatherBackward']);
const OPTIMIZER = new Set(['adamw', 'sumSquares']);
const MEMORY = new Set(['alloc', 'free']);

/** Which part a profile row belongs to. */
export function partOf(row: ProfileRow, shapes: ModelMatmuls): PartName {
  const op = row.key.split(' ')[0]!;
  if (op === 'matmul' || op === 'matmulBf16') {
    const dims = [...row.key.matchAll(/[mnk]=(\d+)/g)].map((m) => Number(m[1]));
    const has = (pairs: readonly (readonly [number, number])[]): boolean => pairs.some(([a, b]) => {
      for (let i = 0; i < 3; i++) {
        const rest = dims.filter((_, j) => j !== i);
        if ((rest[0] === a && rest[1] === b) || (rest[0] === b && rest[1] === a)) return true;
      }
      return false;
    });
    if (has(shapes.head)) return 'lm head + log-softmax';
    if (has(shapes.lora)) return 'lora';
    if (has(shapes.projections)) return 'projections';
    return dims.includes(shapes.headDim) ? 'attention' : 'other matmuls';
  }
  if (op.startsWith('attention') || op.startsWith('causalSoftmax') || op === 'cacheAttention') return 'attention';
  if (HEAD.has(op)) return 'lm head + log-softmax';
  if (op === 'sampleRows') return 'sampling';
  if (ELEMENTWISE.has(op)) return 'element-wise';
  if (OPTIMIZER.has(op)) return 'optimizer';
  if (MEMORY.has(op)) return 'memory';
  return 'other matmuls';
}

/** Rows summed by part, slowest first; `totalMs` (the caller's time) adds the JavaScript row. */
export function profileParts(rows: Iterable<ProfileRow>, shapes: ModelMatmuls, totalMs: number): PartRow[] {
  const parts = new Map<PartName, { ms: number; calls: number; flop: number }>();
  let inside = 0;
  for (const row of rows) {
    const part = partOf(row, shapes);
    const sum = parts.get(part) ?? { ms: 0, calls: 0, flop: 0 };
    sum.ms += row.ms;
    sum.calls += row.calls;
    sum.flop += row.flop;
    parts.set(part, sum);
    inside += row.ms;
  }
  const out: PartRow[] = [...parts].map(([part, s]) => ({ part, ...s }));
  out.push({ part: 'javascript (outside kernels)', ms: Math.max(0, totalMs - inside), calls: 0, flop: 0 });
  return out.sort((a, b) => b.ms - a.ms);
}

/**
 * The machine's float32 matmul rate as measured: the best of a few large square products, in
 * flop per second of process CPU time (as the profile's rows are timed), so other work on a
 * busy machine does not lower it. On several threads it is the rate per busy core.
 */
export function measurePeak(kernels: Kernels, minCpuMs = 300): { gflops: number; shape: string } {
  const cpuMs = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let best = { gflops: 0, shape: '' };
  for (const n of [384, 512, 768]) {
    const rng = new Rng(7);
    const a = kernels.alloc(n * n);
    const b = kernels.alloc(n * n);
    const c = kernels.alloc(n * n);
    for (const x of [a, b]) for (let i = 0; i < x.length; i++) x[i] = rng.nextU32() / 2 ** 32 - 0.5;
    const args = { a, b, c, m: n, n, k: n };
    kernels.matmul(args);
    for (let run = 0; run < 3; run++) {
      const start = cpuMs();
      let calls = 0;
      do {
        kernels.matmul(args);
        calls++;
      } while (cpuMs() - start < minCpuMs / 3);
      const gflops = (2 * n * n * n * calls) / ((cpuMs() - start) * 1e6);
      if (gflops > best.gflops) best = { gflops, shape: `${n}x${n}x${n}` };
    }
    for (const x of [a, b, c]) kernels.free(x);
  }
  return best;
}

/** A text table: seconds, share of the total, GFLOP/s and its share of `peakGflops`. */
export function formatParts(parts: readonly PartRow[], peakGflops: number): string {
  const total = parts.reduce((s, p) => s + p.ms, 0);
  const lines = ['        s   share     GFLOP  GFLOP/s  of peak  part'];
  for (const p of parts) {
    const rate = p.flop > 0 && p.ms > 0 ? p.flop / p.ms / 1e6 : undefined;
    lines.push(
      `${(p.ms / 1000).toFixed(3).padStart(9)} ${`${((100 * p.ms) / Math.max(total, 1e-9)).toFixed(1)}%`.padStart(7)} ` +
        `${p.flop > 0 ? (p.flop / 1e9).toFixed(2).padStart(9) : ''.padStart(9)} ${rate === undefined ? ''.padStart(8) : rate.toFixed(1).padStart(8)} ` +
        `${rate === undefined ? ''.padStart(8) : `${((100 * rate) / peakGflops).toFixed(0)}%`.padStart(8)}  ${p.part}`,
    );
  }
  lines.push(`${(total / 1000).toFixed(3).padStart(9)}  100.0%${''.padStart(28)}  total (peak ${peakGflops.toFixed(1)} GFLOP/s)`);
  return lines.join('\n');
}
