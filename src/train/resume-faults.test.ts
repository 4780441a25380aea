// What a fault leaves behind must not stop the next resume: the temporary folder of a save
// that was killed mid-write is removed, a damaged newest checkpoint gives way to the newest
// intact one (and the run still ends with the weights of an uninterrupted run), and a resume
// on other kernels is refused unless allowed, because the numbers would change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cosineLr } from '../engine/optim/cosine-schedule.js';
import { checkSameEngine, engineName, type ResumedCheckpoint } from './resume-checkpoint.js';
import { runTraining } from './run-training.js';
import { cliPath as cli, tinyRun } from './tiny-run.test-helper.js';

const { dir, config } = tinyRun({ prefix: 'troupe-fault-', map: 'shared', train: '{ steps: 4, eval_every: 0, eval_tasks: 2, checkpoint_every: 1, keep_checkpoints: 3, samples_every: 0 }' });
const quiet = { write: () => true };
const weights = (runDir: string, step: string) => readFileSync(join(runDir, 'checkpoints', step, 'policies', 'shared', 'model.safetensors'));
const trainSteps = (runDir: string) =>
  readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.kind === 'train').map((r) => r.step);

test('a killed save and a damaged newest checkpoint: resume cleans up, falls back, and ends as an uninterrupted run', async () => {
  const whole = join(dir, 'whole');
  let printed = '';
  await runTraining({ config, runDir: whole, stream: { write: (text: string) => (printed += text) } });
  // One step numbering: the progress line, the checkpoint and the report name the last step alike.
  assert.match(printed, /^step 3 \(4\/4\) /m);
  assert.ok(existsSync(join(whole, 'checkpoints', 'step-000003')));
  assert.match(readFileSync(join(whole, 'report.html'), 'utf8'), /after RL step 3\b/);

  const runDir = join(dir, 'faulty');
  await runTraining({ config, runDir, stream: quiet, stopAfterSteps: 3 });
  assert.deepEqual(readdirSync(join(runDir, 'checkpoints')), ['step-000000', 'step-000001', 'step-000002']);
  // What a SIGKILL during the next save leaves: a half-written temporary folder.
  const killed = join(runDir, 'checkpoints', '.tmp-step-000003-999999');
  mkdirSync(join(killed, 'optimizer'), { recursive: true });
  writeFileSync(join(killed, 'optimizer', 'shared.safetensors'), 'half');
  // A damaged newest checkpoint (a file cut short by a crash or a full disk elsewhere).
  const newest = join(runDir, 'checkpoints', 'step-000002', 'policies', 'shared', 'model.safetensors');
  truncateSync(newest, 100);

  const resumed = spawnSync(process.execPath, [cli, 'train', config, '--run-dir', runDir, '--resume'], { encoding: 'utf8' });
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.match(resumed.stderr, /removed 1 unfinished checkpoint folder\(s\) an interrupted save left \(\.tmp-step-000003-999999\)/);
  const warnings = resumed.stderr.split('\n').filter((l) => l.startsWith('warning:'));
  assert.equal(warnings.length, 1, resumed.stderr);
  assert.match(warnings[0]!, /^warning: checkpoint step-000002 is damaged \(.*model\.safetensors.*\); resuming from step-000001, the newest intact one/);
  assert.match(resumed.stderr, /resuming after step 1 /);
  assert.ok(!existsSync(killed), 'the temporary folder is gone');
  assert.ok(existsSync(join(runDir, 'checkpoints', 'step-000002.damaged')), 'the damaged checkpoint is kept aside for inspection');
  assert.deepEqual(trainSteps(runDir), [0, 1, 2, 3], 'every step exactly once');
  assert.deepEqual(weights(runDir, 'step-000003'), weights(whole, 'step-000003'), 'the replayed steps give the uninterrupted weights');
});

test('a resume on other kernels is refused, and with --allow-engine-change continues with a warning', async () => {
  const runDir = join(dir, 'engine');
  await runTraining({ config, runDir, stream: quiet, stopAfterSteps: 1 });
  const saved = JSON.parse(readFileSync(join(runDir, 'checkpoints', 'step-000000', 'state.json'), 'utf8')).engine as string;
  // Any kernel name (native-avx512-bf16, wasm-relaxed, ...), never the thread count: it does not change the numbers.
  assert.match(saved, /^(native|wasm)-/);
  assert.doesNotMatch(saved, /\bthreads?\b/, 'no thread count in the engine id');
  // Native -> WebAssembly the way the bug report met it; on a WebAssembly-only machine, the other bf16 mode.
  const other = saved.startsWith('native') ? { TROUPE_NO_NATIVE: '1' } : { TROUPE_BF16_MATMUL: /bf16 fast/.test(saved) ? 'exact' : 'fast' };
  const env = { ...process.env, ...other };

  const refused = spawnSync(process.execPath, [cli, 'train', config, '--run-dir', runDir, '--resume'], { encoding: 'utf8', env });
  assert.equal(refused.status, 2, refused.stderr);
  const line = refused.stderr.trim();
  assert.equal(line.split('\n').filter((l) => l.startsWith('troupe:')).length, 1, refused.stderr);
  assert.match(line, /troupe: config error: the run's checkpoint step-000000 was computed by .+, and this process would continue on .+: the numbers would differ from step 1 on\. .*--allow-engine-change/);
  assert.deepEqual(trainSteps(runDir), [0], 'nothing was trained');

  const allowed = spawnSync(process.execPath, [cli, 'train', config, '--run-dir', runDir, '--resume', '--allow-engine-change'], { encoding: 'utf8', env });
  assert.equal(allowed.status, 0, allowed.stderr);
  assert.match(allowed.stderr, /warning: the run's checkpoint step-000000 was computed by .+ \(--allow-engine-change\); steps from 1 on will not match/);
  assert.deepEqual(trainSteps(runDir), [0, 1, 2, 3]);
});

test('--resume may raise train.steps: a finished run goes on with the new total\'s schedule; lowering it is refused', async () => {
  const runDir = join(dir, 'extended');
  await runTraining({ config, runDir, stream: quiet });
  await assert.rejects(runTraining({ config, runDir, stream: quiet, resume: true, set: ['train.steps=3'] }), /train\.steps: the run has 4, the config now says 3 \(train\.steps may only grow on --resume\)/);
  const result = await runTraining({ config, runDir, stream: quiet, resume: true, set: ['train.steps=6'] });
  assert.equal(result.lastStep, 5);
  const records = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.kind === 'train');
  assert.deepEqual(records.map((r) => r.step), [0, 1, 2, 3, 4, 5]);
  const lr = (step: number, totalSteps: number) => cosineLr({ step, warmupSteps: 2, totalSteps, maxLr: 1e-3, minLr: 1e-4 });
  assert.deepEqual(records.map((r) => r.lr), [0, 1, 2, 3].map((s) => lr(s, 4)).concat([4, 5].map((s) => lr(s, 6))));
  assert.match(readFileSync(join(runDir, 'config.yaml'), 'utf8'), /steps: 6/);
});

test('a resume on another thread count is the same engine (results do not depend on it), also for names that still carry one', () => {
  const saved = (engine: string) => ({ dir: '/run/checkpoints/step-000004', step: 4, state: { engine } }) as unknown as ResumedCheckpoint;
  const warnings: string[] = [];
  const warn = (line: string) => warnings.push(line);
  checkSameEngine(saved('native-avx512, bf16 fast'), 'native-avx512, bf16 fast', false, warn);
  checkSameEngine(saved('native-avx512, 2 threads, bf16 fast'), 'native-avx512, bf16 fast', false, warn);
  checkSameEngine(saved('wasm-relaxed, 1 thread, bf16 exact'), 'wasm-relaxed, bf16 exact', false, warn);
  assert.deepEqual(warnings, []);
  assert.throws(() => checkSameEngine(saved('native-avx512, 2 threads, bf16 fast'), 'wasm-relaxed, bf16 fast', false, warn), /computed by native-avx512, 2 threads, bf16 fast, and this process would continue on wasm-relaxed, bf16 fast/);
  assert.throws(() => checkSameEngine(saved('native-avx512, bf16 fast'), 'native-avx512, bf16 exact', false, warn), /--allow-engine-change/);
});

test('the engine id names what changes the bits: multiply-add rounding and the engine build; an older short id still resumes', () => {
  const saved = (engine: string) => ({ dir: '/run/checkpoints/step-000004', step: 4, state: { engine } }) as unknown as ResumedCheckpoint;
  const warn = () => undefined;
  assert.match(engineName({ name: 'native-avx2', bf16Matmul: 'fast' }), /^native-avx2, bf16 fast, fp-contract fast, build \w+$/);
  assert.match(engineName({ name: 'wasm-relaxed', bf16Matmul: 'exact' }), /^wasm-relaxed, bf16 exact, relaxed madd (fused|unfused), build [0-9a-f]{12}$/);
  assert.match(engineName({ name: 'wasm-plain', bf16Matmul: 'exact' }), /^wasm-plain, bf16 exact, no fused madd, build [0-9a-f]{12}$/);
  const now = 'wasm-relaxed, bf16 exact, relaxed madd fused, build 0123456789ab';
  checkSameEngine(saved('wasm-relaxed, bf16 exact'), now, false, warn); // written before the id had the last two fields
  checkSameEngine(saved(now), now, false, warn);
  assert.throws(() => checkSameEngine(saved('wasm-relaxed, bf16 exact, relaxed madd unfused, build 0123456789ab'), now, false, warn), /relaxed madd unfused.*--allow-engine-change/);
  assert.throws(() => checkSameEngine(saved('wasm-relaxed, bf16 exact, relaxed madd fused, build ffffffffffff'), now, false, warn), /build ffffffffffff/);
});
