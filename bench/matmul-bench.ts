// Matmul throughput of the kernels, reference vs wasm, 1 and 2 threads.
// Run: npx tsx bench/matmul-bench.ts [--quick]
// Shapes are written m x k x n (C[m x n] = A[m x k] B[k x n]); T marks a transposed operand.
import { pathToFileURL } from 'node:url';
import { createReferenceKernels } from '../src/engine/kernels/reference.js';
import { createWasmKernels } from '../src/engine/kernels/wasm-kernels.js';
import { measureMatmul, type MatmulShape } from '../src/engine/kernels/measure-matmul.js';

export { measureMatmul, type MatmulMeasurement, type MatmulShape } from '../src/engine/kernels/measure-matmul.js';

export function shapeLabel(s: MatmulShape): string {
  return `${s.m}x${s.k}${s.transA ? 'T' : ''} * ${s.k}x${s.n}${s.transB ? 'T' : ''}`;
}

const variants = (m: number, k: number, n: number): MatmulShape[] => [
  { m, k, n },
  { m, k, n, transB: true },
  { m, k, n, transA: true },
  { m, k, n, transA: true, transB: true },
];

/** The benchmark shapes: the headline pair, then those of training the benchmark model. */
export const BENCH_SHAPES: readonly MatmulShape[] = [
  ...variants(256, 256, 256),
  { m: 64, k: 512, n: 2048 },
  { m: 2048, k: 256, n: 256, transB: true }, // linear forward x W^T (HF weight layout)
  { m: 2048, k: 256, n: 1024, transB: true },
  { m: 2048, k: 1024, n: 256 }, // input gradient dY W
  { m: 256, k: 2048, n: 256, transA: true }, // weight gradient dY^T X
  { m: 1024, k: 2048, n: 256, transA: true },
  { m: 128, k: 64, n: 128, transB: true }, // attention scores Q K^T
  { m: 128, k: 128, n: 64 }, // attention P V
  { m: 1, k: 256, n: 1024, transB: true }, // decoding one token
];

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const shapes = quick ? BENCH_SHAPES.filter((s, i) => i === 0 || i === 4) : BENCH_SHAPES;
  const runs = quick ? 3 : 5;
  const wasm1 = await createWasmKernels({ threads: 1 });
  const wasm2 = await createWasmKernels({ threads: 2 });
  const reference = createReferenceKernels();
  console.log(`simd: ${wasm1.simd}; GFLOP/s (median of ${runs} runs)`);
  console.log(`${'shape'.padEnd(24)} ${'reference'.padStart(10)} ${'wasm 1t'.padStart(10)} ${'wasm 2t'.padStart(10)}`);
  for (const shape of shapes) {
    const small = shape.m * shape.n * shape.k <= 256 ** 3;
    const ref = small ? measureMatmul(reference, shape, { runs: 3, minBatchMs: 10 }).gflops.toFixed(2) : '-';
    const one = measureMatmul(wasm1, shape, { runs }).gflops.toFixed(1);
    const two = measureMatmul(wasm2, shape, { runs }).gflops.toFixed(1);
    console.log(`${shapeLabel(shape).padEnd(24)} ${ref.padStart(10)} ${one.padStart(10)} ${two.padStart(10)}`);
  }
  await wasm1.dispose();
  await wasm2.dispose();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
