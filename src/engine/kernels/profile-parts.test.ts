import assert from 'node:assert/strict';
import { test } from 'node:test';
import { llamaConfig } from '../model/llama-config.js';
import { profileKernels } from './profile-kernels.js';
import { modelMatmuls, partOf, profileParts } from './profile-parts.js';
import { createReferenceKernels } from './reference.js';

const config = llamaConfig({ hidden: 64, layers: 2, heads: 4, intermediate: 192, vocab: 96 });
const row = (key: string) => ({ key, calls: 1, ms: 1, flop: 0 });

test('partOf names a matmul by the weight it multiplies, whichever of forward, dx or dW it is', () => {
  const shapes = modelMatmuls(config, 8);
  assert.equal(partOf(row('matmul NT m=300 n=192 k=64'), shapes), 'projections'); // y = x W^T
  assert.equal(partOf(row('matmul NN m=300 n=64 k=192'), shapes), 'projections'); // dx = dy W
  assert.equal(partOf(row('matmul TN m=192 n=64 k=300'), shapes), 'projections'); // dW = dy^T x
  assert.equal(partOf(row('matmul NT m=300 n=96 k=64'), shapes), 'lm head + log-softmax');
  assert.equal(partOf(row('matmul TN m=96 n=64 k=300'), shapes), 'lm head + log-softmax');
  assert.equal(partOf(row('matmul NT m=300 n=8 k=192'), shapes), 'lora');
  assert.equal(partOf(row('matmul NN m=5 n=7 k=3'), shapes), 'other matmuls');
  assert.equal(partOf(row('matmul NT m=1 n=37 k=16'), shapes), 'attention'); // q K^T of a decoded token
  assert.equal(partOf(row('attentionBatchForward T=2'), shapes), 'attention');
  assert.equal(partOf(row('swigluBackward'), shapes), 'element-wise');
  assert.equal(partOf(row('alloc'), shapes), 'memory');
  assert.equal(partOf(row('sampleRows'), shapes), 'sampling');
});

test('profileParts sums a real profile by part, and the JavaScript row is the rest of the total', () => {
  const profiled = profileKernels(createReferenceKernels());
  const k = profiled.kernels;
  const x = k.alloc(10 * 64);
  const w = k.alloc(96 * 64);
  const y = k.alloc(10 * 96);
  k.matmul({ a: x, b: w, c: y, m: 10, n: 96, k: 64, transB: true });
  k.logSoftmax(y, 10, 96);
  const inside = [...profiled.rows.values()].reduce((s, r) => s + r.ms, 0);
  const parts = profileParts(profiled.rows.values(), modelMatmuls(config), inside + 5);
  const head = parts.find((p) => p.part === 'lm head + log-softmax')!;
  assert.equal(head.calls, 2);
  assert.equal(head.flop, 2 * 10 * 96 * 64);
  assert.ok(Math.abs(parts.find((p) => p.part === 'javascript (outside kernels)')!.ms - 5) < 1e-9);
  assert.ok(Math.abs(parts.reduce((s, p) => s + p.ms, 0) - (inside + 5)) < 1e-9);
});
