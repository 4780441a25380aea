import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../util/repo-root.test-helper.js';
import { benchGrpoStep, evenIdShare, grpoStepPrompts } from './bench-grpo-step.js';

test('bench grpo-step times rollout and update of a bf16 LoRA step and reports the sampler/learner gap', async () => {
  const folder = join(repoRoot(), 'src/engine/io/fixtures/models/qwen3-bf16');
  const lines: string[] = [];
  const r = await benchGrpoStep(folder, { prompts: 2, k: 3, newTokens: 5, loraRank: 4, threads: 1, backend: 'wasm', progressEveryMs: 0, progress: (line) => lines.push(line) });
  assert.equal(r.backend, 'wasm');
  assert.equal(r.base_dtype, 'bf16');
  assert.equal(r.old_logprobs, 'learner', 'a bf16 base takes the learner as the old policy');
  assert.ok(r.logprob_gap_max >= 0 && r.logprob_gap_max < 0.05 && r.logprob_gap_mean <= r.logprob_gap_max);
  assert.ok(r.is_weight_mean !== null && Math.abs(r.is_weight_mean - 1) < 0.05);
  // Rounded to milliseconds: a tiny model may take less than one.
  assert.ok(r.rollout_s >= 0 && r.update_s >= 0 && r.step_s >= r.rollout_s + r.update_s - 0.002, JSON.stringify(r));
  assert.ok(r.micro_batches >= 1 && Number.isFinite(r.grad_norm) && r.grad_norm > 0);
  // A line in every phase: loading, each decoded token, each micro-batch, and the end of each.
  for (const phase of [/^loading /, /^loaded in /, /^rollout: 2 prompts x 3 completions x 5 tokens/, /^rollout: 1\/30 tokens/, /^rollout done/, /^update: micro-batch 1\//, /^update done .* gap max/]) {
    assert.ok(lines.some((line) => phase.test(line)), `no progress line matches ${phase}:\n${lines.join('\n')}`);
  }
});

test('bench grpo-step refuses sizes it cannot run, naming the flag', async () => {
  const folder = join(repoRoot(), 'src/engine/io/fixtures/models/qwen3-bf16');
  await assert.rejects(benchGrpoStep(folder, { prompts: 2, k: 1, newTokens: 5, loraRank: 4, threads: 1 }), /--k must be at least 2/);
  await assert.rejects(benchGrpoStep(folder, { prompts: Number.NaN, k: 2, newTokens: 5, loraRank: 4, threads: 1 }), /--prompts must be a whole number from 1 to 256, got NaN/);
});

test('the prompts and the stand-in reward are the ones the TRL script uses', () => {
  assert.deepEqual(grpoStepPrompts(2), [
    'Task 1: a robot stands on a grid with walls. Explain, step by step, how it finds the shortest path to the goal.',
    'Task 2: a robot stands on a grid with walls. Explain, step by step, how it finds the shortest path to the goal.',
  ]);
  const trl = readFileSync(join(repoRoot(), 'bench/trl-grpo-step.py'), 'utf8');
  assert.ok(trl.includes(`f"${grpoStepPrompts(1)[0]!.replace('Task 1', 'Task {i + 1}')}"`), 'bench/trl-grpo-step.py writes the same prompts');
  assert.ok(trl.includes('sum(1 for t in ids if t % 2 == 0) / max(len(ids), 1)'), 'and the same reward');
  assert.equal(evenIdShare([2, 3, 4, 7]), 0.5);
  assert.equal(evenIdShare([]), 0);
});

test('bench grpo-step --profile splits each phase by part, with LoRA and projection rates', async () => {
  const folder = join(repoRoot(), 'src/engine/io/fixtures/models/qwen3-bf16');
  const r = await benchGrpoStep(folder, { prompts: 2, k: 2, newTokens: 3, loraRank: 4, threads: 1, backend: 'wasm', profile: true });
  assert.ok(r.profile && r.profile.peak_gflops > 0);
  for (const phase of [r.profile.rollout, r.profile.update]) {
    const parts = new Map(phase.map((p) => [p.part, p]));
    assert.ok(parts.get('projections')!.flop > 0, JSON.stringify(phase));
    assert.ok(parts.get('lora')!.flop > 0, JSON.stringify(phase));
    assert.ok(parts.has('javascript (outside kernels)'));
  }
  const unprofiled = await benchGrpoStep(folder, { prompts: 2, k: 2, newTokens: 3, loraRank: 4, threads: 1, backend: 'wasm' });
  assert.equal(unprofiled.profile, undefined);
});
