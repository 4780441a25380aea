import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadNativeBinding } from '../engine/kernels/native-binding.js';
import { llamaConfig } from '../engine/model/llama-config.js';
import { benchEngine, busyWarning, formatEngineBench, threadLadder } from './bench-command.js';

const ISSUE_FIELDS = [
  'train_step_ms', 'decode_b1_tok_s', 'decode_b16_tok_s', 'prefill_tok_s',
  'matmul_256_gflops_1t', 'matmul_256_gflops_2t', 'matmul_64x512x2048_gflops_1t', 'matmul_64x512x2048_gflops_2t',
];

test('bench engine (tiny settings) gives every headline field as a positive number, in one JSON object', async () => {
  const config = llamaConfig({ hidden: 16, layers: 1, heads: 2, intermediate: 32, vocab: 64, context: 32 });
  const lines: string[] = [];
  const result = await benchEngine({
    threads: 1, backend: 'wasm', config, batch: 2, context: 8, trainSteps: 1, samplingRuns: 1, decodeTokens: 3, prefillTokens: 4,
    matmulRuns: 1, matmulMinBatchMs: 0, busySampleMs: 20, progress: (line) => lines.push(line),
  });
  const parsed = JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
  for (const field of ISSUE_FIELDS) {
    const value = parsed[field];
    assert.equal(typeof value, 'number', `${field} is ${JSON.stringify(value)}`);
    assert.ok(Number.isFinite(value as number) && (value as number) > 0, `${field} = ${String(value)}`);
  }
  assert.equal(result.threads, 1);
  assert.deepEqual(result.model, { hidden: 16, layers: 1, heads: 2, intermediate: 32, vocab: 64, batch: 2, context: 8 });
  // hidden 16 x vocab 64 embeddings and head, 4 * 16^2 attention, 3 * 16 * 32 MLP, 3 norms
  assert.equal(result.parameters, 2 * 64 * 16 + 4 * 16 * 16 + 3 * 16 * 32 + 3 * 16);
  assert.equal(result.load_start.length, 3);
  assert.ok(result.machine.simd.startsWith('wasm-'));
  assert.equal(result.backend, 'wasm');
  assert.equal(lines.length, 3); // 1 thread, 2 threads, sampling

  // Scaling: 1 and 2 threads (the scaling figures need both), the same losses on each.
  assert.deepEqual(result.scaling.map((p) => p.threads), [1, 2]);
  assert.equal(result.scaling_losses_equal, true);
  assert.equal(result.scaling[0]!.matmul_256_gflops, result.matmul_256_gflops_1t);
  assert.equal(result.scaling[0]!.train_step_ms, result.train_step_ms);

  const text = formatEngineBench(result);
  assert.match(text, /decode, batch 1 .* tok\/s/);
  assert.match(text, /scaling +threads +training step/);
  assert.match(text, /every thread count computed bit-identical training losses/);
  assert.match(text, new RegExp(`${result.machine.cores} cores`));
});

test('bench engine names the backend it measured: native when asked (and the addon is built)', async (t) => {
  const config = llamaConfig({ hidden: 16, layers: 1, heads: 2, intermediate: 32, vocab: 64, context: 32 });
  const tiny = { threads: 1, config, batch: 2, context: 8, trainSteps: 1, samplingRuns: 1, decodeTokens: 3, prefillTokens: 4, matmulRuns: 1, matmulMinBatchMs: 0, busySampleMs: 20 } as const;
  if (!loadNativeBinding().binding) {
    // Without the addon, auto falls back to WebAssembly.
    assert.equal((await benchEngine(tiny)).backend, 'wasm');
    return;
  }
  const result = await benchEngine({ ...tiny, backend: 'native' });
  assert.equal(result.backend, 'native');
  // The instruction set is whichever this CPU runs best: any name the addon reports.
  assert.ok(loadNativeBinding().binding!.isas.map((isa) => `native-${isa}`).includes(result.machine.simd), result.machine.simd);
  assert.ok(result.train_step_ms > 0 && result.decode_b1_tok_s > 0);
  t.diagnostic(`native: ${result.machine.simd}`);
});

test('the scaling ladder: 1, 2, powers of two below N, and N', () => {
  assert.deepEqual(threadLadder(1), [1, 2]);
  assert.deepEqual(threadLadder(2), [1, 2]);
  assert.deepEqual(threadLadder(3), [1, 2, 3]);
  assert.deepEqual(threadLadder(8), [1, 2, 4, 8]);
  assert.deepEqual(threadLadder(12), [1, 2, 4, 8, 12]);
});

test('busyWarning speaks from half the cores busy on', () => {
  assert.equal(busyWarning(0.4, 2), undefined);
  assert.match(busyWarning(1.2, 2) ?? '', /load average 1\.20 on 2 cores/);
  assert.equal(busyWarning(3.9, 8), undefined);
  assert.ok(busyWarning(4, 8) !== undefined);
});

test('busyWarning trusts the measured busy share over the load average when it has one', () => {
  assert.equal(busyWarning(1.5, 2, 0.05), undefined);
  assert.match(busyWarning(0.1, 2, 0.6) ?? '', /other work used 60% of 2 cores/);
  assert.ok(busyWarning(1.5, 2, null) !== undefined);
});
