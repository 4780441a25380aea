// `troupe train` with policy.kind tinker against Troupe's own Tinker server (in-process, on a
// warm-started tiny base), next to the same run on the embedded engine with policy.map lora.
// Both start from the same base with adapters whose B is zero, so the first step samples the
// same tokens and computes the same loss; the adapters' random A differ (the service seeds its
// own initialisation, and the API cannot upload weights), so later steps are not compared.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getKernels } from '../engine/kernels/get-kernels.js';
import { startTinkerServer, type RunningTinkerServer } from '../serve/tinker/tinker-server.js';
import { LORA_ALPHA } from '../serve/tinker/training-model.js';
import { runTraining } from './run-training.js';
import { tinyRun } from './tiny-run.test-helper.js';

const quiet = { write: () => true };
const timing = new Set(['elapsed_s', 'samples_per_s', 'tokens_per_s', 'rollout_s', 'update_s']);
const records = (runDir: string): any[] =>
  readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line, (key, value) => (timing.has(key) ? undefined : value)));

const run = tinyRun({ map: 'lora', train: '{ steps: 0, eval_tasks: 4 }', prefix: 'troupe-tinker-run-' });
const base = join(run.dir, 'warm', 'base');
let server: RunningTinkerServer;

before(async () => {
  await runTraining({ config: run.config, runDir: join(run.dir, 'warm'), stream: quiet, set: ['warm_start.episodes=200', 'warm_start.epochs=3', 'warm_start.lr=0.01', 'model.hidden=32'] });
  server = await startTinkerServer({ kernels: await getKernels(), models: [{ name: 'base', dir: base }], port: 0, pollWaitMs: 200, log: () => {} });
});

after(async () => {
  await server.close();
  delete process.env.TINKER_API_KEY;
});

const train = ['train.steps=2', 'train.warmup_steps=0', 'train.eval_every=0', 'train.eval_tasks=4', 'train.checkpoint_every=1', `model.path=${base}`, 'warm_start.enabled=false', 'model.lora.r=4', `model.lora.alpha=${LORA_ALPHA}`, 'rollout.k=4', 'rollout.tasks=3'];

test('troupe train drives LoRA clients on a Tinker service and writes the run like an embedded one', async () => {
  process.env.TINKER_API_KEY = 'tml-test';
  const tinkerDir = join(run.dir, 'tinker');
  const tinker = await runTraining({ config: run.config, runDir: tinkerDir, stream: quiet, set: [...train, 'policy.kind=tinker', `policy.tinker.base_url=${server.url}`] });
  const embedded = await runTraining({ config: run.config, runDir: join(run.dir, 'embedded'), stream: quiet, set: train });
  assert.equal(tinker.lastStep, 1);
  for (const f of ['metrics.jsonl', 'report.html', 'rollouts/step-000001.jsonl']) assert.ok(existsSync(join(tinkerDir, f)), f);
  const state = JSON.parse(readFileSync(join(tinkerDir, 'checkpoints', 'step-000001', 'state.json'), 'utf8'));
  assert.deepEqual(Object.keys(state.policies).sort(), ['plan', 'tool'], 'one training client per role');
  assert.match(state.policies.plan.path, /^tinker:\/\/.*step-000001-plan$/);

  const [t, e] = [records(tinkerDir), records(join(run.dir, 'embedded'))];
  assert.deepEqual(t.map((r) => `${r.kind}:${r.step}`), e.map((r) => `${r.kind}:${r.step}`), 'same records in the same order');
  assert.deepEqual(t.find((r) => r.kind === 'eval' && r.step === -1), e.find((r) => r.kind === 'eval' && r.step === -1), 'the base policy plays the same');
  const [t0, e0] = [t.find((r) => r.kind === 'train' && r.step === 0), e.find((r) => r.kind === 'train' && r.step === 0)];
  assert.deepEqual(t0.roles, e0.roles, 'step 0 samples the same responses with the same rewards');
  assert.equal(t0.tokens, e0.tokens);
  let trained = 0;
  for (const id of ['plan', 'tool']) {
    const [tp, ep] = [t0.policies[id], e0.policies[id]];
    assert.equal(tp.tokens, ep.tokens, id);
    assert.ok(Math.abs(tp.loss - ep.loss) < 1e-5, `${id} loss ${tp.loss} vs ${ep.loss}`);
    assert.ok(Math.abs(tp.clip_fraction - ep.clip_fraction) < 1e-6, `${id} clip fraction`);
    assert.equal(tp.entropy, null, 'entropy is not available over the Tinker API');
    if (ep.loss !== 0) trained++;
  }
  assert.ok(trained > 0, 'the comparison covers a real update (some group had reward differences)');
});

test('a missing API key is a config error naming TINKER_API_KEY, before a run folder is made', async () => {
  delete process.env.TINKER_API_KEY;
  const runDir = join(run.dir, 'no-key');
  await assert.rejects(runTraining({ config: run.config, runDir, stream: quiet, set: [...train, 'policy.kind=tinker', `policy.tinker.base_url=${server.url}`] }), /TINKER_API_KEY environment variable/);
  assert.equal(existsSync(runDir), false);
});

test('a server killed mid-run is a one-line error naming it; a server restarted on its state folder resumes the run', async () => {
  process.env.TINKER_API_KEY = 'tml-test';
  const stateDir = join(run.dir, 'state');
  const first = await startTinkerServer({ kernels: await getKernels(), models: [{ name: 'base', dir: base }], port: 0, pollWaitMs: 200, stateDir, log: () => {} });
  const runDir = join(run.dir, 'killed');
  const set = [...train, 'train.steps=3', 'policy.kind=tinker', `policy.tinker.base_url=${first.url}`, 'policy.tinker.max_retries=1'];
  let closing: Promise<void> | undefined;
  // The progress line of step 1 is written once step 0 is done and checkpointed: kill the server then.
  const killer = { write: (text: string) => ((closing ??= /step 1\/3/.test(text) ? first.close() : undefined), true) };
  const failure = await runTraining({ config: run.config, runDir, stream: killer, set }).then(
    () => assert.fail('the run went on without its server'),
    (error: Error) => error,
  );
  await closing;
  assert.match(failure.message, new RegExp(`check that the server at ${first.url.replace(/[.]/g, '\\.')} is running`));
  assert.equal(failure.message.includes('\n'), false, 'one line');
  const state = JSON.parse(readFileSync(join(runDir, 'checkpoints', 'step-000000', 'state.json'), 'utf8'));
  assert.match(state.policies.tool.path, /^tinker:\/\//);

  const second = await startTinkerServer({ kernels: await getKernels(), models: [{ name: 'base', dir: base }], port: Number(new URL(first.url).port), pollWaitMs: 200, stateDir, log: () => {} });
  try {
    let log = '';
    const resumed = await runTraining({ config: run.config, runDir, stream: { write: (t: string) => ((log += t), true) }, set, resume: true });
    assert.equal(resumed.lastStep, 2);
    assert.match(log, /resuming after step 0/);
    assert.deepEqual(records(runDir).filter((r) => r.kind === 'train').map((r) => r.step), [0, 1, 2], 'every step once: nothing lost, nothing repeated');
  } finally {
    await second.close();
  }
});
