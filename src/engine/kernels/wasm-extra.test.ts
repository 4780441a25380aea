import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Rng } from '../../util/rng.js';
import { createWasmKernels } from './wasm-kernels.js';

// Behaviour specific to the WASM kernels; the shared behaviour is in conformance.ts.

for (const simd of ['relaxed', 'plain'] as const) {
  test(`${simd}: exp approximation within 1e-6 relative of Math.exp on [-87, 88]`, async () => {
    const kernels = await createWasmKernels({ threads: 1, simd });
    const n = 20_001;
    const x = kernels.alloc(n);
    const out = kernels.alloc(n);
    for (let i = 0; i < n; i++) x[i] = -87 + (175 * i) / (n - 1);
    kernels.exports.exp_array(x.byteOffset, out.byteOffset, n);
    let worst = 0;
    for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(out[i]! / Math.exp(x[i]!) - 1));
    assert.ok(worst < 1e-6, `worst relative error ${worst}`);
    x.set([-100, -87.5, 0, Number.NaN]);
    kernels.exports.exp_array(x.byteOffset, out.byteOffset, 4);
    assert.deepEqual([...out.subarray(0, 3)], [0, 0, 1]);
    assert.ok(Number.isNaN(out[3]));
    for (const v of [1e-40, 1e-30, 0.3, 1, 1.5, Math.SQRT2, 2, 1234.5, 3e38]) {
      const got = kernels.exports.log_f64(v);
      assert.ok(Math.abs(got - Math.log(v)) <= 1e-12 * Math.max(1, Math.abs(Math.log(v))), `log(${v}) = ${got}`);
    }
    assert.equal(kernels.exports.log_f64(0), -Infinity);
    await kernels.dispose();
  });
}

test('1 and 2 threads give bit-identical matmuls (split by rows and by columns)', async () => {
  const one = await createWasmKernels({ threads: 1 });
  const two = await createWasmKernels({ threads: 2, parallelThreshold: 1, adaptiveSplit: false });
  const rng = new Rng(5);
  for (const [m, k, n, transA, transB] of [[200, 300, 40, false, true], [36, 270, 300, true, false]] as const) {
    const a = Float32Array.from({ length: m * k }, () => rng.nextU32() / 2 ** 32 - 0.5);
    const b = Float32Array.from({ length: k * n }, () => rng.nextU32() / 2 ** 32 - 0.5);
    const c1 = new Float32Array(m * n);
    const c2 = new Float32Array(m * n);
    one.matmul({ a, b, c: c1, m, n, k, transA, transB });
    two.matmul({ a, b, c: c2, m, n, k, transA, transB });
    assert.deepEqual(c2, c1, `m=${m} n=${n} k=${k}`);
  }
  await one.dispose();
  await two.dispose();
});

test('hundreds of back-to-back chunked matmuls stay exact (chunk claiming between jobs)', async () => {
  const one = await createWasmKernels({ threads: 1 });
  const two = await createWasmKernels({ threads: 2, parallelThreshold: 1, adaptiveSplit: false });
  const rng = new Rng(9);
  for (let job = 0; job < 300; job++) {
    const m = 4 + (rng.nextU32() % 40);
    const n = 8 + (rng.nextU32() % 70);
    const k = 1 + (rng.nextU32() % 30);
    const a = two.alloc(m * k);
    const b = two.alloc(k * n);
    for (const x of [a, b]) for (let i = 0; i < x.length; i++) x[i] = (rng.nextU32() % 1000) / 500 - 1;
    const c1 = new Float32Array(m * n);
    const c2 = two.alloc(m * n);
    one.matmul({ a, b, c: c1, m, n, k });
    two.matmul({ a, b, c: c2, m, n, k });
    assert.deepEqual(c2, c1, `job ${job}: m=${m} n=${n} k=${k}`);
    for (const x of [a, b, c2]) two.free(x);
  }
  await one.dispose();
  await two.dispose();
});

test('1-row x W^T (decoding) split in column chunks is bit-identical to one thread', async () => {
  const one = await createWasmKernels({ threads: 1 });
  const two = await createWasmKernels({ threads: 2, adaptiveSplit: false, matvecSplitFrom: 0 });
  const rng = new Rng(13);
  for (const [n, k] of [[1024, 256], [256, 1024], [272, 241], [1000, 70]] as const) {
    const w = two.alloc(n * k);
    const x = two.alloc(k);
    for (const v of [w, x]) for (let i = 0; i < v.length; i++) v[i] = rng.nextU32() / 2 ** 32 - 0.5;
    const c1 = new Float32Array(n);
    const c2 = two.alloc(n);
    one.matmul({ a: x, b: w, c: c1, m: 1, n, k, transB: true });
    for (let rep = 0; rep < 20; rep++) {
      c2.fill(Number.NaN);
      two.matmul({ a: x, b: w, c: c2, m: 1, n, k, transB: true });
      assert.deepEqual(c2, c1, `n=${n} k=${k} repetition ${rep}`);
    }
    // and it is a matrix-vector product: compare one output with a float64 dot product
    let dot = 0;
    for (let p = 0; p < k; p++) dot += x[p]! * w[(n - 1) * k + p]!;
    assert.ok(Math.abs(c1[n - 1]! - dot) < 1e-4, `last output ${c1[n - 1]} vs ${dot}`);
    for (const v of [w, x, c2]) two.free(v);
  }
  await one.dispose();
  await two.dispose();
});

test('an idle worker does not keep the process alive', () => {
  // Works from the sources (under tsx) and from the compiled dist/ files (plain node).
  const fromSource = import.meta.url.endsWith('.ts');
  const kernelsUrl = new URL(`./wasm-kernels.${fromSource ? 'ts' : 'js'}`, import.meta.url).href;
  const script = `const { createWasmKernels } = await import(${JSON.stringify(kernelsUrl)});
    const k = await createWasmKernels({ threads: 2, parallelThreshold: 1 });
    const a = k.alloc(64 * 64); k.matmul({ a, b: a, c: k.alloc(64 * 64), m: 64, n: 64, k: 64 });
    console.log('done');`;
  const tsx = fileURLToPath(new URL('../../../node_modules/tsx/dist/cli.mjs', import.meta.url));
  const args = fromSource ? [tsx, '--input-type=module', '-e', script] : ['--input-type=module', '-e', script];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 20_000 });
  assert.equal(result.signal, null, 'it ended by itself (not killed by the timeout)');
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /done/);
});
