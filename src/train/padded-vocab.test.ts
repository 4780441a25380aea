// A padded vocabulary (a model with more embedding rows than tokenizer ids, as every Qwen2.5 /
// Qwen3 checkpoint has) on every path that samples: `troupe train` on the embedded engine with
// LoRA (mask on: the padded ids are never sampled and sampler and learner agree to 1e-5; mask
// off: they are sampled, kept as ids and train like any token), the Tinker server's sampler
// (the ids come back as sampled, the client derives the text) and `troupe train` with
// policy.kind tinker against that server. The random 100-row model over the 64-id character
// tokenizer samples a padded id for about a third of its tokens.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { getKernels } from '../engine/kernels/get-kernels.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { TinkerPolicy } from '../policy/tinker-policy.js';
import { startTinkerServer, type RunningTinkerServer } from '../serve/tinker/tinker-server.js';
import { LORA_ALPHA } from '../serve/tinker/training-model.js';
import { makeTinyModelDir, type TinyModelDir } from '../serve/tiny-model.test-helper.js';
import { TinkerClient } from '../tinker/tinker-client.js';
import { runTraining } from './run-training.js';
import { tinyRun } from './tiny-run.test-helper.js';

const IDS = 64; // the standard character tokenizer
const quiet = { write: () => true };
const run = tinyRun({ map: 'lora', train: '{ steps: 3, warmup_steps: 0, eval_every: 0, eval_tasks: 2, checkpoint_every: 0 }', prefix: 'troupe-padded-vocab-' });
let folder: TinyModelDir;
let server: RunningTinkerServer;

before(async () => {
  folder = makeTinyModelDir({ vocab: 100, context: 256, seed: 2 });
  server = await startTinkerServer({ kernels: await getKernels(), models: [{ name: 'padded', dir: folder.dir }], port: 0, pollWaitMs: 200, log: () => {} });
});

after(async () => {
  await server.close();
  folder.remove();
  delete process.env.TINKER_API_KEY;
});

/** Every response id of a run's rollouts. */
function responseIds(runDir: string): number[] {
  const dir = join(runDir, 'rollouts');
  return readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n').flatMap((line) => JSON.parse(line).response_ids as number[]));
}

const settings = () => [`model.path=${folder.dir}`, 'warm_start.enabled=false', 'model.lora.r=4', `model.lora.alpha=${LORA_ALPHA}`, 'rollout.k=4', 'rollout.tasks=2', 'train.lora_lr=0.02'];

test('troupe train, embedded LoRA: with the mask no padded id is sampled and sampler and learner agree to 1e-5; without it they are sampled and trained on', async () => {
  const masked = await runTraining({ config: run.config, runDir: join(run.dir, 'masked'), stream: quiet, set: [...settings(), 'train.logprob_tolerance=1e-5'] });
  assert.equal(masked.lastStep, 2, 'three steps, each passing the stale-weight check at 1e-5');
  const maskedIds = responseIds(join(run.dir, 'masked'));
  assert.ok(maskedIds.length > 50 && maskedIds.every((id) => id < IDS), 'only ids the tokenizer has');

  const free = await runTraining({ config: run.config, runDir: join(run.dir, 'free'), stream: quiet, set: [...settings(), 'model.mask_tokenless_ids=false'] });
  assert.equal(free.lastStep, 2);
  const freeIds = responseIds(join(run.dir, 'free'));
  assert.ok(freeIds.filter((id) => id >= IDS).length > freeIds.length / 10, 'padded ids are sampled, kept and trained on');
});

test('the Tinker server returns padded ids as sampled, with their logprobs; the client derives the text', async () => {
  process.env.TINKER_API_KEY = 'tml-test';
  const client = await TinkerClient.connect({ baseUrl: server.url, apiKey: 'tml-test', maxRetries: 1, backoffMs: 10 });
  try {
    const sampler = await client.createSampler({ baseModel: 'padded' });
    const tokenizer = CharTokenizer.standard();
    const prompt = [1, ...tokenizer.encode('PLAN:')];
    const response = await sampler.sample({ prompt: { chunks: [{ type: 'encoded_text', tokens: prompt }] }, num_samples: 4, sampling_params: { max_tokens: 16, seed: 5, temperature: 1 } });
    const ids = response.sequences.flatMap((s) => s.tokens);
    assert.ok(ids.some((id) => id >= IDS) && ids.every((id) => id < 100), 'padded ids come back as ids');
    for (const s of response.sequences) assert.equal(s.logprobs?.length, s.tokens.length);
    const policy = new TinkerPolicy({ id: 'p', sampler, tokenizer });
    const [completions] = await policy.sample([{ prompt: 'PLAN:', promptIds: prompt, n: 4, seed: 5, maxTokens: 16, temperature: 1, topP: 1, topK: 0, stop: [] }]);
    completions!.forEach((c, i) => {
      assert.deepEqual(c.ids, response.sequences[i]!.tokens, `sample ${i}: the ids as sampled`);
      assert.equal(c.text, tokenizer.decode(c.ids.filter((id) => id < IDS), { skipSpecial: true }), `sample ${i}: text from the ids the tokenizer has`);
    });
  } finally {
    client.close();
  }
});

test('troupe train with policy.kind tinker against Troupe\'s server on the padded model completes its steps', async () => {
  process.env.TINKER_API_KEY = 'tml-test';
  const runDir = join(run.dir, 'tinker');
  const result = await runTraining({ config: run.config, runDir, stream: quiet, set: [...settings(), 'policy.kind=tinker', `policy.tinker.base_url=${server.url}`, 'policy.tinker.base_model=padded'] });
  assert.equal(result.lastStep, 2);
  const ids = responseIds(runDir);
  assert.ok(ids.some((id) => id >= IDS), 'the service samples padded ids (it has no mask) and the run trains on them');
});
