// A run that cannot start leaves nothing behind and says why in one line: a mistyped
// model.path is "no such folder" (never a hub look-up), a setup failure removes the run folder
// it made, and Ctrl-C during the warm start says what it kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath as cli, interruptWhen, tinyRun } from './tiny-run.test-helper.js';

const { dir, config } = tinyRun({ prefix: 'troupe-setup-', map: 'shared', train: '{ steps: 2, eval_every: 0, eval_tasks: 2, samples_every: 0 }' });
// A hub that cannot be reached: had the command looked model.path up there, it would say so.
const env = { ...process.env, HF_ENDPOINT: 'http://127.0.0.1:9', HF_HOME: join(dir, 'hf') };

function train(args: string[]): { status: number | null; stderr: string } {
  return spawnSync(process.execPath, [cli, 'train', config, ...args], { encoding: 'utf8', cwd: dir, env, timeout: 120_000 });
}

function oneErrorLine(result: { status: number | null; stderr: string }): string {
  assert.equal(result.status, 2, result.stderr);
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 1, result.stderr);
  return lines[0]!;
}

test('a mistyped model.path next to its folder is "no such folder", before any hub look-up or run folder', () => {
  mkdirSync(join(dir, 'models'), { recursive: true });
  const line = oneErrorLine(train(['--set', 'model.path=models/nope', '--run-dir', 'typo']));
  assert.match(line, /^troupe: input error: no such folder "models\/nope" \(models\/ is a folder here, so it is read as a path, not a hub id\)/);
  assert.doesNotMatch(line, /hub\.|network|fetch|127\.0\.0\.1:9/);
  assert.match(oneErrorLine(train(['--set', 'model.path=./nope', '--run-dir', 'typo'])), /no such folder "\.\/nope"/);
  assert.ok(!existsSync(join(dir, 'typo')), 'no run folder');
});

test('a run whose setup fails removes the run folder it made', () => {
  mkdirSync(join(dir, 'empty-model'));
  const result = train(['--set', 'model.path=empty-model', '--run-dir', 'half']);
  assert.equal(result.status, 2, result.stderr);
  assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace');
  assert.match(result.stderr.trim().split('\n').at(-1)!, /^troupe: checkpoint error: .*empty-model/);
  assert.ok(!existsSync(join(dir, 'half')), 'no half-made run folder');
});

test('Ctrl-C during the warm start: says what it kept and leaves no folder that demands --resume', async () => {
  const runDir = join(dir, 'warm');
  const { code, stderr } = await interruptWhen(['train', config, '--run-dir', runDir, '--set', 'warm_start.epochs=1000', '--set', 'warm_start.episodes=40'], /warm-start \d+ \(/, env);
  assert.equal(code, 130, stderr);
  assert.match(stderr, /stopping the warm start after this step/);
  assert.match(stderr, /stopped during the warm start, after \d+ of \d+ steps; a warm start is not checkpointed, so nothing was kept \(\S+warm was removed\); start again with: troupe train \S+tiny\.yaml --run-dir \S+warm\n$/);
  assert.ok(!existsSync(runDir), 'the fresh run folder is gone');
  // Starting again works without --resume.
  const again = spawnSync(process.execPath, [cli, 'train', config, '--run-dir', runDir], { encoding: 'utf8', env });
  assert.equal(again.status, 0, again.stderr);
});

test('Ctrl-C during the warm start in a folder that existed before: kept as it was, and --resume finishes the run', async () => {
  const runDir = join(dir, 'existing');
  mkdirSync(runDir);
  const { code, stderr } = await interruptWhen(['train', config, '--run-dir', runDir, '--set', 'warm_start.epochs=150', '--set', 'warm_start.episodes=40'], /warm-start \d+ \(/, env);
  assert.equal(code, 130, stderr);
  assert.match(stderr, /stopped during the warm start, after \d+ of \d+ steps; the base model was not saved and \S+existing keeps what it had; continue with: troupe train \S+tiny\.yaml --resume --run-dir \S+existing\n$/);
  assert.ok(existsSync(runDir) && !existsSync(join(runDir, 'base', 'warm-start.json')), 'the folder stays, with no cached base');
  const finished = spawnSync(process.execPath, [cli, 'train', config, '--run-dir', runDir, '--resume', '--set', 'warm_start.epochs=150', '--set', 'warm_start.episodes=40'], { encoding: 'utf8', env });
  assert.equal(finished.status, 0, finished.stderr);
  const warm = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.kind === 'warm-start').map((r) => r.step);
  assert.deepEqual(warm, Array.from({ length: warm.length }, (_, i) => i), 'the stopped warm start\'s records were replaced, each step once');
});
