// `troupe train` with policy.kind tinker against Troupe's own Tinker server (in-process, on a
// warm-started tiny base), next to the same run on the embedded engine with policy.map lora.
// The client sends each adapter's seed (lora_config.seed, the embedded run's rule) and the
// server's alpha equals model.lora.alpha, so both runs start from the same adapters, sample the
// same tokens and train with the same loss (KL to the base included) and AdamW: every step's
// metrics agree.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getKernels } from '../engine/kernels/get-kernels.js';
import { startTinkerServer, type RunningTinkerServer } from '../serve/tinker/tinker-server.js';
import { LORA_ALPHA } from '../serve/tinker/training-model.js';
import { runEval } from '../api/run-eval.js';
import { runRollout } from '../api/run-rollout.js';
import { listCheckpoints } from './checkpoint-store.js';
import { runTraining } from './run-training.js';
import { metricsWithoutTiming, tinyRun } from './tiny-run.test-helper.js';

const quiet = { write: () => true };
const records = metricsWithoutTiming;

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

const STEPS = 4;
// Rank 8 at the server's default alpha (32): scale 4, a pace at which both routes' float32 sums
// agree within the tolerances below over the steps checked.
const train = ['train.steps=2', 'train.warmup_steps=0', 'train.eval_every=0', 'train.eval_tasks=4', 'train.checkpoint_every=1', `model.path=${base}`, 'warm_start.enabled=false', 'model.lora.r=8', `model.lora.alpha=${LORA_ALPHA}`, 'rollout.k=4', 'rollout.tasks=3'];
const close = (a: number, b: number, tolerance: number, what: string) => assert.ok(Math.abs(a - b) <= tolerance, `${what}: tinker ${a} vs embedded ${b}`);

test('troupe train drives LoRA clients on a Tinker service and matches the embedded run step for step', async () => {
  process.env.TINKER_API_KEY = 'tml-test';
  const tinkerDir = join(run.dir, 'tinker');
  const set = [...train, `train.steps=${STEPS}`, 'train.lora_lr=0.02', 'train.kl_coef=0.05'];
  const tinker = await runTraining({ config: run.config, runDir: tinkerDir, stream: quiet, set: [...set, 'policy.kind=tinker', `policy.tinker.base_url=${server.url}`] });
  await runTraining({ config: run.config, runDir: join(run.dir, 'embedded'), stream: quiet, set });
  assert.equal(tinker.lastStep, STEPS - 1);
  const last = String(STEPS - 1).padStart(6, '0');
  for (const f of ['metrics.jsonl', 'report.html', `rollouts/step-${last}.jsonl`]) assert.ok(existsSync(join(tinkerDir, f)), f);
  const state = JSON.parse(readFileSync(join(tinkerDir, 'checkpoints', `step-${last}`, 'state.json'), 'utf8'));
  assert.deepEqual(Object.keys(state.policies).sort(), ['plan', 'tool'], 'one training client per role');
  assert.match(state.policies.plan.path, new RegExp(`^tinker://.*step-${last}-plan$`));

  const [t, e] = [records(tinkerDir), records(join(run.dir, 'embedded'))];
  assert.deepEqual(t.map((r) => `${r.kind}:${r.step}`), e.map((r) => `${r.kind}:${r.step}`), 'same records in the same order');
  assert.deepEqual(t.filter((r) => r.kind === 'eval'), e.filter((r) => r.kind === 'eval'), 'the base and the trained policies play the held-out tasks the same');
  let trained = 0;
  for (let step = 0; step < STEPS; step++) {
    const [ts, es] = [t.find((r) => r.kind === 'train' && r.step === step), e.find((r) => r.kind === 'train' && r.step === step)];
    assert.deepEqual({ ...ts, policies: null }, { ...es, policies: null }, `step ${step}: the same success, turns, tokens and per-role rewards`);
    for (const id of ['plan', 'tool']) {
      const [tp, ep] = [ts.policies[id], es.policies[id]];
      assert.equal(tp.tokens, ep.tokens, `step ${step} ${id} tokens`);
      close(tp.loss, ep.loss, 1e-5, `step ${step} ${id} loss`);
      close(tp.clip_fraction, ep.clip_fraction, 1e-6, `step ${step} ${id} clip fraction`);
      assert.equal(typeof tp.kl, 'number', 'a KL to the base is reported');
      close(tp.kl, ep.kl, 1e-6, `step ${step} ${id} KL to the base`);
      if (ep.grad_norm !== null) close(tp.grad_norm, ep.grad_norm, 1e-4 * Math.max(1, ep.grad_norm), `step ${step} ${id} grad norm`);
      assert.equal(tp.entropy, null, 'entropy is not available over the Tinker API');
      if (ep.loss !== 0 && step > 0) trained++;
    }
  }
  assert.ok(trained > 0, 'the comparison covers steps after a real update (some group had reward differences)');
});

test('asynchronous (max_steps_off_policy 1): the service samples step k + 1 with the weights before update k while it runs, exactly as the embedded schedule does; resume is exact', async () => {
  process.env.TINKER_API_KEY = 'tml-test';
  const set = [...train, `train.steps=${STEPS}`, 'train.lora_lr=0.05', 'train.max_steps_off_policy=1', 'advantage.estimator=raw'];
  const tinkerSet = [...set, 'policy.kind=tinker', `policy.tinker.base_url=${server.url}`];
  const tinkerDir = join(run.dir, 'tinker-async');
  await runTraining({ config: run.config, runDir: tinkerDir, stream: quiet, set: tinkerSet });
  await runTraining({ config: run.config, runDir: join(run.dir, 'embedded-async'), stream: quiet, set });
  const [t, e] = [records(tinkerDir), records(join(run.dir, 'embedded-async'))];
  const strip = (r: any) => ({ ...r, policies: null, off_policy: { ...r.off_policy, logprob_gap_max: null, is_weight_min: null, is_weight_max: null } });
  for (let step = 0; step < STEPS; step++) {
    const [ts, es] = [t.find((r) => r.kind === 'train' && r.step === step), e.find((r) => r.kind === 'train' && r.step === step)];
    // Had the rollout of step k + 1 used a sampler of the new weights, its tokens would differ.
    assert.deepEqual(strip(ts), strip(es), `step ${step}: same samples, staleness and trained groups`);
    // Float32 noise of two engines' scoring (the service batches each forward's datums its own way) grows with the value.
    const relative = (x: number) => 1e-4 * Math.max(1, Math.abs(x));
    close(ts.off_policy.logprob_gap_max, es.off_policy.logprob_gap_max, relative(es.off_policy.logprob_gap_max), `step ${step} sampler/learner gap`);
    close(ts.off_policy.is_weight_max, es.off_policy.is_weight_max, relative(es.off_policy.is_weight_max), `step ${step} largest importance weight`);
    for (const id of ['plan', 'tool']) close(ts.policies[id].loss, es.policies[id].loss, 1e-5, `step ${step} ${id} loss`);
  }
  assert.deepEqual(t.filter((r) => r.kind === 'train').map((r) => r.off_policy.max_staleness), [0, 1, 1, 1]);
  assert.ok(t.some((r) => r.kind === 'train' && r.off_policy.logprob_gap_max > 1e-3), 'the samples really were off-policy');

  const split = join(run.dir, 'tinker-async-split');
  await runTraining({ config: run.config, runDir: split, stream: quiet, set: tinkerSet, stopAfterSteps: 2 });
  await runTraining({ config: run.config, runDir: split, stream: quiet, set: tinkerSet, resume: true });
  assert.deepEqual(records(split), t, 'stopped after step 1 and resumed: the same run');
});

test('troupe eval and troupe rollout play through the service and write what the embedded backend writes', async () => {
  process.env.TINKER_API_KEY = 'tml-test';
  // The run folders of the first test: their newest checkpoints hold the same weights.
  const [tinkerEval, embeddedEval] = [await runEval({ target: join(run.dir, 'tinker') }), await runEval({ target: join(run.dir, 'embedded') })];
  assert.match(tinkerEval.source, /on the Tinker service at http/);
  assert.deepEqual({ ...tinkerEval, source: '' }, { ...embeddedEval, source: '' }, 'the trained policies play the held-out tasks the same');
  assert.ok(tinkerEval.n > 0);

  const out = (name: string) => join(run.dir, `${name}.jsonl`);
  const rollout = (name: string, extra: string[]) => runRollout({ config: run.config, set: [...train, ...extra], out: out(name), print: () => {} });
  const served = await rollout('rollout-tinker', ['policy.kind=tinker', `policy.tinker.base_url=${server.url}`]);
  await rollout('rollout-embedded', []);
  assert.ok(served.summary.samples > 0);
  // Logprobs travel as float32 over the API and the service batches a prompt's samples on their own,
  // so they agree to float32 rounding; everything else is identical.
  const lines = (name: string) => readFileSync(out(name), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const [ts, es] = [lines('rollout-tinker'), lines('rollout-embedded')];
  assert.equal(ts.length, es.length);
  ts.forEach((t, i) => {
    assert.deepEqual({ ...t, logprobs: [] }, { ...es[i], logprobs: [] }, `sample ${i}: same tokens, text, rewards and groups`);
    t.logprobs.forEach((lp: number, k: number) => close(lp, es[i].logprobs[k], 1e-5, `sample ${i} logprob ${k}`));
  });
});

test('a model.lora.alpha the server does not use is a config error naming both and the fix', async () => {
  process.env.TINKER_API_KEY = 'tml-test';
  const runDir = join(run.dir, 'alpha');
  await assert.rejects(
    runTraining({ config: run.config, runDir, stream: quiet, set: [...train, 'model.lora.alpha=8', 'policy.kind=tinker', `policy.tinker.base_url=${server.url}`] }),
    new RegExp(`model.lora.alpha is 8, but the Tinker service at .* trains adapters with alpha ${LORA_ALPHA}; set model.lora.alpha=${LORA_ALPHA}, or restart it with troupe serve --tinker --lora-alpha 8`),
  );
});

test('LoRA target modules that are not whole Tinker groups are a config error naming the groups', async () => {
  process.env.TINKER_API_KEY = 'tml-test';
  await assert.rejects(
    runTraining({ config: run.config, runDir: join(run.dir, 'targets'), stream: quiet, set: [...train, 'model.lora.target_modules=[q_proj, v_proj]', 'policy.kind=tinker', `policy.tinker.base_url=${server.url}`] }),
    /model\.lora\.target_modules: a Tinker service trains whole groups \(attention: q_proj, k_proj, v_proj, o_proj; MLP: gate_proj, up_proj, down_proj\), got q_proj, v_proj/,
  );
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
  // The progress line 'step 0 (1/3)' is written once step 0 is done and checkpointed: kill the server then.
  const killer = { write: (text: string) => ((closing ??= /step 0 \(1\/3\)/.test(text) ? first.close() : undefined), true) };
  const failure = await runTraining({ config: run.config, runDir, stream: killer, set }).then(
    () => assert.fail('the run went on without its server'),
    (error: Error) => error,
  );
  await closing;
  assert.match(failure.message, new RegExp(`check that the server at ${first.url.replace(/[.]/g, '\\.')} is running`));
  assert.equal(failure.message.includes('\n'), false, 'one line');
  assert.match(failure.message, /the newest checkpoint is step 0\); once the service is back, continue with: troupe train .*tiny\.yaml --resume --run-dir .*killed$/);
  const state = JSON.parse(readFileSync(join(runDir, 'checkpoints', 'step-000000', 'state.json'), 'utf8'));
  assert.match(state.policies.tool.path, /^tinker:\/\//);

  const second = await startTinkerServer({ kernels: await getKernels(), models: [{ name: 'base', dir: base }], port: Number(new URL(first.url).port), pollWaitMs: 200, stateDir, log: () => {} });
  try {
    let log = '';
    const resumed = await runTraining({ config: run.config, runDir, stream: { write: (t: string) => ((log += t), true) }, set, resume: true });
    assert.equal(resumed.lastStep, 2);
    assert.match(log, /resuming after step 0/);
    assert.deepEqual(records(runDir).filter((r) => r.kind === 'train').map((r) => r.step), [0, 1, 2], 'every step once: nothing lost, nothing repeated');
    // Pruned run checkpoints (train.keep_checkpoints 2) are deleted on the service too, so its
    // state folder holds exactly the weights the remaining checkpoints name.
    const kept = listCheckpoints(runDir).flatMap((c) => Object.values(JSON.parse(readFileSync(join(c.dir, 'state.json'), 'utf8')).policies).map((p: any) => p.path as string));
    const stored = readdirSync(stateDir).filter((f) => f.endsWith('.safetensors')).map((f) => decodeURIComponent(f.slice(0, -'.safetensors'.length)));
    assert.equal(kept.length, 4, 'two checkpoints of two policies');
    assert.deepEqual(stored.sort(), kept.sort());
  } finally {
    await second.close();
  }
});

test('model.lora.train_unembed adds a head pair on both routes: the Tinker run still matches the embedded one, and the saved adapters target lm_head', async () => {
  process.env.TINKER_API_KEY = 'tml-test';
  const set = [...train, 'train.steps=2', 'train.lora_lr=0.02', 'model.lora.train_unembed=true'];
  const [tinkerDir, embeddedDir] = [join(run.dir, 'unembed-tinker'), join(run.dir, 'unembed-embedded')];
  await runTraining({ config: run.config, runDir: tinkerDir, stream: quiet, set: [...set, 'policy.kind=tinker', `policy.tinker.base_url=${server.url}`] });
  await runTraining({ config: run.config, runDir: embeddedDir, stream: quiet, set });
  const [t, e] = [records(tinkerDir), records(embeddedDir)];
  const trainOf = (rs: typeof t) => rs.filter((r) => r.kind === 'train');
  assert.equal(trainOf(t).length, 2);
  for (const [ts, es] of trainOf(t).map((r, i) => [r, trainOf(e)[i]])) {
    for (const id of ['plan', 'tool']) close(ts.policies[id].loss, es.policies[id].loss, 1e-5, `step ${ts.step} ${id} loss`);
  }
  const adapterConfig = JSON.parse(readFileSync(join(embeddedDir, 'checkpoints', 'step-000001', 'adapters', 'plan', 'adapter_config.json'), 'utf8'));
  assert.ok(adapterConfig.target_modules.includes('lm_head'), `embedded adapter targets ${adapterConfig.target_modules}`);
});
