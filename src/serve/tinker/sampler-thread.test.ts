// `troupe serve --tinker --sampler-thread`: asample runs on a thread of its own with copies of
// the base and of the sampler snapshots. A Tinker training run (asynchronous, so sampling and
// training requests overlap) against a server with the thread equals the same run against a
// server without it, record for record and token for token.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getKernels } from '../../engine/kernels/get-kernels.js';
import { runTraining } from '../../train/run-training.js';
import { metricsWithoutTiming, tinyRun } from '../../train/tiny-run.test-helper.js';
import { startTinkerServer, type RunningTinkerServer } from './tinker-server.js';
import { LORA_ALPHA } from './training-model.js';

const quiet = { write: () => true };
const run = tinyRun({ map: 'lora', train: '{ steps: 0, eval_tasks: 4 }', prefix: 'troupe-sampler-thread-' });
const base = join(run.dir, 'warm', 'base');
const servers: RunningTinkerServer[] = [];

before(async () => {
  await runTraining({ config: run.config, runDir: join(run.dir, 'warm'), stream: quiet, set: ['warm_start.episodes=100', 'warm_start.epochs=2', 'warm_start.lr=0.01', 'model.hidden=32'] });
  const kernels = await getKernels();
  for (const samplerThread of [false, true]) servers.push(await startTinkerServer({ kernels, models: [{ name: 'base', dir: base }], port: 0, pollWaitMs: 200, log: () => {}, samplerThread }));
  process.env.TINKER_API_KEY = 'tml-test';
});

after(async () => {
  for (const s of servers) await s.close();
  delete process.env.TINKER_API_KEY;
});

test('a Tinker run samples the same through the sampling thread as between training jobs', async () => {
  const set = ['train.steps=4', 'train.warmup_steps=0', 'train.eval_every=2', 'train.eval_tasks=4', 'train.samples_every=1', 'train.lora_lr=0.05', 'train.kl_coef=0.05', 'train.max_steps_off_policy=1', `model.path=${base}`, 'warm_start.enabled=false', 'model.lora.r=4', `model.lora.alpha=${LORA_ALPHA}`, 'rollout.k=4', 'rollout.tasks=3', 'policy.kind=tinker'];
  const dirs = ['inline', 'thread'].map((name) => join(run.dir, name));
  for (const [i, dir] of dirs.entries()) await runTraining({ config: run.config, runDir: dir, stream: quiet, set: [...set, `policy.tinker.base_url=${servers[i]!.url}`] });
  const [inline, thread] = dirs.map(metricsWithoutTiming);
  assert.ok(inline!.filter((r) => r.kind === 'train').length === 4);
  assert.deepEqual(thread, inline);
  for (const f of readdirSync(join(dirs[0]!, 'rollouts'))) assert.equal(readFileSync(join(dirs[1]!, 'rollouts', f), 'utf8'), readFileSync(join(dirs[0]!, 'rollouts', f), 'utf8'), f);
  assert.ok(servers[1]!.service.samplerThread!.served > 50, 'the thread answered the samples');
  assert.equal(servers[0]!.service.samplerThread, undefined);
});

test('troupe serve --tinker --sampler-thread says where it samples, and gives the threads back when it closes', async () => {
  const { runTinkerServeCommand } = await import('../../cli/serve-command.js');
  const kernels = await getKernels();
  const before = kernels.threads;
  let printed = '';
  const server = await runTinkerServeCommand({ models: [`base=${base}`], hfCache: false, host: '127.0.0.1', port: 0, seed: 0, samplerThread: true, print: (t) => (printed += t) });
  assert.match(printed, /; sampling on a thread of its own \(\d+ kernel threads?, training \d+\)/);
  await server.close();
  assert.equal(kernels.threads, before);
});
