/**
 * What the `fast` bf16 product (bf16-matmul-mode.ts: activations rounded to bf16 where they
 * meet a bf16 weight) costs in log-prob agreement, on the transformers-made qwen3-bf16
 * fixture loaded frozen (base kept in bf16): against transformers' float32 log-probs of the
 * same weights (reference.json, which `exact` meets to ~1e-6), against transformers' own
 * bfloat16 run (bf16-run.json, scripts/bf16-run-logprobs.py), and between the two ways the
 * engine computes them: the sampler (KV-cache decode) and the learner (tokenLogprobs).
 * The bounds are the measured gaps with headroom; `exact` must stay far inside the first.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { getKernels } from '../kernels/get-kernels.js';
import { loadModel } from './model-checkpoint.js';
import { autogradLogprobs, decodeLogprobs, maxAbsDifference, MODEL_FIXTURES, readReference } from './model-fixtures.test-helper.js';

const DIR = join(MODEL_FIXTURES, 'qwen3-bf16');
const bf16Run = (JSON.parse(readFileSync(join(DIR, 'bf16-run.json'), 'utf8')) as { logprobs: number[][] }).logprobs;

function gaps(mode: 'fast' | 'exact') {
  return getKernels('auto', mode).then((kernels) => {
    const { model } = loadModel(kernels, DIR, { frozen: true });
    const ref = readReference('qwen3-bf16');
    const learner = autogradLogprobs(model, ref.sequences, 1);
    const worst = (f: (lp: number[], b: number) => number): number => Math.max(...learner.map(f));
    const result = {
      toFloat32: worst((lp, b) => maxAbsDifference(lp, ref.logprobs[b]!)),
      toBf16Run: worst((lp, b) => maxAbsDifference(lp, bf16Run[b]!)),
      samplerToLearner: worst((lp, b) => maxAbsDifference(decodeLogprobs(model, ref.sequences[b]!, 1), lp)),
    };
    model.dispose();
    return result;
  });
}

test('fast bf16 products: log-probs closer to transformers float32 than its own bf16 run is, sampler = learner', async () => {
  const fast = await gaps('fast');
  const exact = await gaps('exact');
  const torchBf16 = Math.max(...bf16Run.map((lp, b) => maxAbsDifference(lp, readReference('qwen3-bf16').logprobs[b]!)));
  const line = (name: string, g: typeof fast) => `${name}: ${g.toFloat32.toExponential(2)} to float32, ${g.toBf16Run.toExponential(2)} to the bf16 run, ${g.samplerToLearner.toExponential(2)} sampler-learner`;
  console.log(`${line('fast', fast)}\n${line('exact', exact)}\ntransformers bf16 run to float32: ${torchBf16.toExponential(2)}`);
  assert.ok(exact.toFloat32 < 1e-5, `exact stays at float32 parity: ${exact.toFloat32}`);
  assert.ok(fast.toFloat32 > 10 * exact.toFloat32, 'fast really rounds (else this test measures nothing)');
  // Measured: fast 1.4e-2, transformers' own bf16 run 2.2e-2 from the float32 log-probs.
  assert.ok(fast.toFloat32 < torchBf16, `fast (${fast.toFloat32}) is closer to float32 than transformers' own bf16 run (${torchBf16})`);
  assert.ok(fast.samplerToLearner < 1e-4, `sampled and learner log-probs agree in fast mode: ${fast.samplerToLearner}`);
  assert.ok(exact.samplerToLearner < 1e-5, `and in exact mode: ${exact.samplerToLearner}`);
});
