// The embedded sampler on a thread of its own (train.async_sampler: worker): the same run as
// sampling inline, bit for bit, for a full-weights map and a LoRA map; the line that says where
// sampling runs; and the cases that stay inline. Run through the CLI with TROUPE_THREADS=2 so
// that the thread is used whatever the machine's cores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../../config/load-config.js';
import { runTraining } from '../run-training.js';
import { setupRun } from '../setup-run.js';
import { RolloutWorker } from './rollout-worker.js';
import { cliPath, metricsWithoutTiming, tinyRun } from '../tiny-run.test-helper.js';
import { builtInTask } from '../../envs/task-catalog.js';
import type { AnyTaskDefinition } from '../../envs/task-catalog.js';

function train(config: string, runDir: string, set: readonly string[], threads = '2'): string {
  const args = [cliPath, 'train', config, '--run-dir', runDir, ...set.flatMap((s) => ['--set', s])];
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, TROUPE_THREADS: threads } });
  assert.equal(run.status, 0, run.stderr);
  return run.stderr;
}

function sameRun(a: string, b: string): void {
  assert.deepEqual(metricsWithoutTiming(a), metricsWithoutTiming(b));
  const files = readdirSync(join(a, 'rollouts'));
  assert.ok(files.length >= 3);
  for (const f of files) assert.equal(readFileSync(join(a, 'rollouts', f), 'utf8'), readFileSync(join(b, 'rollouts', f), 'utf8'), f);
}

for (const [map, s] of [['per-role', 1], ['lora', 2]] as const) {
  test(`${map} map, s = ${s}: sampling on a worker thread gives the inline run exactly`, () => {
    const { dir, config } = tinyRun({ prefix: `troupe-worker-${map}-`, map, train: `{ steps: 5, ${map === 'lora' ? 'lora_lr' : 'lr'}: 0.05, warmup_steps: 1, eval_every: 0, eval_tasks: 4, samples_every: 1, max_steps_off_policy: ${s} }` });
    writeFileSync(config, `${readFileSync(config, 'utf8')}advantage: { estimator: raw }\n`);
    const worker = train(config, join(dir, 'worker'), []);
    assert.match(worker, /async sampling: a worker thread \(1 kernel thread, its own copy of the weights\) plays step k \+ \d while the learner \((1 kernel thread|2 kernel threads)\) updates step k/);
    const inline = train(config, join(dir, 'inline'), ['train.async_sampler=inline']);
    assert.doesNotMatch(inline, /worker thread/);
    sameRun(join(dir, 'worker'), join(dir, 'inline'));
    const versions = readFileSync(join(dir, 'worker', 'rollouts', 'step-000004.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).policy_version);
    assert.ok(versions.every((v) => v === 4 - s), `step 4 was sampled with the weights after ${4 - s} updates`);
  });
}

test('one thread, or a task defined in code, samples inline and says why', async () => {
  const { dir, config } = tinyRun({ prefix: 'troupe-worker-inline-', map: 'shared', train: '{ steps: 2, eval_every: 0, eval_tasks: 2, max_steps_off_policy: 1 }' });
  assert.match(train(config, join(dir, 'one'), [], '1'), /async sampling runs on the learner's thread .*one thread \(TROUPE_THREADS=1\)/);
  const planPath = builtInTask('plan-path');
  const mine = { ...planPath, name: 'my-plan-path' } as AnyTaskDefinition;
  const lines: string[] = [];
  await runTraining({ config, runDir: join(dir, 'code'), tasks: [mine], set: ['tasks.name=my-plan-path'], stream: { write: (t: string) => (lines.push(t), true) } });
  assert.match(lines.join(''), /task 'my-plan-path' comes from the tasks option, which a worker thread cannot import; give it as tasks.module/);
});

test('a task from tasks.module reaches the sampling thread, which imports it again', () => {
  const { dir, config } = tinyRun({ prefix: 'troupe-worker-module-', map: 'shared', train: '{ steps: 2, eval_every: 0, eval_tasks: 2, max_steps_off_policy: 1 }' });
  const planPathUrl = pathToFileURL(join(import.meta.dirname, '..', '..', 'envs', 'plan-path', 'index.js')).href;
  writeFileSync(join(dir, 'my-plan-path.mjs'), `import { planPathTask } from ${JSON.stringify(planPathUrl)};\nexport default { ...planPathTask, name: 'my-module-plan-path' };\n`);
  const stderr = train(config, join(dir, 'run'), ['tasks.name=my-module-plan-path', `tasks.module=${join(dir, 'my-plan-path.mjs')}`]);
  assert.match(stderr, /async sampling: a worker thread \(1 kernel thread/);
});

test('the thread reports a rollout\'s completions while it plays (the lines of a long step)', async () => {
  const { dir, config } = tinyRun({ prefix: 'troupe-worker-progress-', map: 'shared', train: '{ steps: 2, eval_every: 0, eval_tasks: 2, max_steps_off_policy: 1 }' });
  const resolved = loadConfig(config);
  const setup = await setupRun(resolved, join(dir, 'run'), { log: () => {} });
  const worker = await RolloutWorker.start({ config: resolved, policies: setup.policies, threads: 1, progressEveryMs: 0 });
  try {
    const seen: number[] = [];
    const rolled = await worker.rollout(0, (n) => seen.push(n));
    assert.ok(seen.length >= 2, `progress messages: ${seen.join(', ')}`);
    assert.ok(seen.every((n, i) => n > 0 && (i === 0 || n > seen[i - 1]!)), `counts grow: ${seen.join(', ')}`);
    assert.ok(seen.at(-1)! <= rolled.samples.length, 'no more completions than the samples played');
  } finally {
    await worker.close();
    setup.policies.dispose();
  }
});
