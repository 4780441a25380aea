import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../util/repo-root.test-helper.js';
import { benchModel } from './bench-model.js';

const SMALL = { prompt: 4, newTokens: 3, wideBatch: 2, prefill: 8, trainBatch: 2, trainContext: 6, trainSteps: 1 };

test('bench model measures a sharded bf16 Qwen3 checkpoint on the backend asked for', async () => {
  const folder = join(repoRoot(), 'src/engine/io/fixtures/models/qwen3-bf16');
  const lines: string[] = [];
  const r = await benchModel(folder, { backend: 'wasm', threads: 1, sizes: SMALL, progress: (line) => lines.push(line) });
  assert.equal(r.backend, 'wasm');
  assert.equal(r.threads, 1);
  assert.equal(r.base_dtype, 'bf16+f32', 'the frozen base keeps its 2-D weights in bf16, norms in float32');
  assert.match(r.bf16_matmul, /^(fast|exact)$/, 'the JSON says how the bf16 base was multiplied');
  for (const key of ['decode_b1_tok_s', 'decode_b16_tok_s', 'prefill_tok_s', 'lora_train_tok_s', 'peak_rss_mb'] as const) {
    assert.ok(Number.isFinite(r[key]) && r[key] > 0, `${key} is a positive number, got ${r[key]}`);
  }
  assert.match(lines[0]!, /loaded .*qwen3-bf16 .* wasm backend, 1 thread/);
  assert.equal(lines.length, 5, 'one progress line per figure after loading');
});

test('bench model names what is wrong with a missing model', async () => {
  await assert.rejects(benchModel('/nonexistent/folder-for-bench', { backend: 'wasm', sizes: SMALL }), /nonexistent\/folder-for-bench/);
});
