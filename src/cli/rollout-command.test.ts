import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TroupeError } from '../util/errors.js';
import { runRollout } from '../api/run-rollout.js';
import { testDir } from '../util/test-dir.test-helper.js';

const dir = testDir('troupe-rollout-');
const config = join(dir, 'toy.yaml');
writeFileSync(config, '# test config\nname: t\nseed: 4\ntasks:\n  name: toy\nrollout:\n  k: 3\n  tasks: 5\npolicy:\n  skill: 0.3\n');

async function run(out: string, set: string[] = [], tasks?: number) {
  let printed = '';
  const result = await runRollout({ config, out, set, ...(tasks ? { tasks } : {}), print: (t) => (printed += t) });
  return { ...result, printed, text: readFileSync(out, 'utf8') };
}

test('same seed gives a byte-identical file; a different seed a different one', async () => {
  const a = await run(join(dir, 'a.jsonl'));
  const b = await run(join(dir, 'b.jsonl'));
  assert.ok(a.text.length > 0);
  assert.equal(a.text, b.text);
  const c = await run(join(dir, 'c.jsonl'), ['seed=5']);
  assert.notEqual(c.text, a.text);
});

test('one JSON line per sample, keys in the fixed order', async () => {
  const { text, summary } = await run(join(dir, 'keys.jsonl'));
  const lines = text.trimEnd().split('\n');
  assert.equal(lines.length, summary.samples);
  const first = JSON.parse(lines[0]!);
  assert.deepEqual(Object.keys(first), [
    'task_id', 'turn', 'role', 'group', 'branch', 'chosen', 'prompt', 'response',
    'reward', 'score', 'advantage', 'policy', 'finish_reason',
  ]);
  assert.deepEqual(Object.keys(first.reward), ['local', 'global', 'total']);
  const withFailure = lines.map((l) => JSON.parse(l)).find((s) => s.failure !== undefined);
  assert.ok(withFailure, 'a low-skill toy run overshoots somewhere');
  const keys = Object.keys(withFailure);
  assert.equal(keys.indexOf('failure'), keys.indexOf('policy') + 1);
  // Independent mode writes `episode` instead of `chosen`.
  const independent = await run(join(dir, 'ind.jsonl'), ['algorithm=grpo', 'rollout.mode=independent']);
  const ind = JSON.parse(independent.text.split('\n')[0]!);
  assert.match(independent.printed, /^policy success /m, 'independent episodes are the policy\'s own');
  assert.equal(ind.episode, 0);
  assert.equal('chosen' in ind, false);
});

test('creates the parent folder, leaves no temp file, prints a summary', async () => {
  const out = join(dir, 'deep', 'er', 'r.jsonl');
  const { printed, summary } = await run(out, [], 2);
  assert.equal(summary.episodes, 2);
  assert.deepEqual(readdirSync(join(dir, 'deep', 'er')), ['r.jsonl']);
  assert.match(printed, /2 tasks, tree K=3/);
  assert.match(printed, /^tree success \d+\.\d% \(\d+\/2 episodes\)/m, 'K = 3 branches: the episodes follow the best one');
  assert.match(printed, /mean turns/);
  assert.match(printed, /parse failures 0/);
  assert.match(printed, /^tool\s+\d+\s+-?\d\.\d{3}/m);
  assert.match(printed, /^plan\s+\d+/m);
});

test('advantages are written, and the zero-variance filter drops whole groups', async () => {
  const plain = await run(join(dir, 'plain.jsonl'), ['advantage.estimator=mean']);
  const samples = plain.text.trimEnd().split('\n').map((l) => JSON.parse(l));
  const byGroup = new Map<string, number[]>();
  for (const s of samples) byGroup.set(s.group, [...(byGroup.get(s.group) ?? []), s.advantage]);
  for (const advantages of byGroup.values()) {
    assert.ok(Math.abs(advantages.reduce((a, b) => a + b, 0)) < 1e-9, 'mean advantages sum to 0 per group');
  }
  const filtered = await run(join(dir, 'filtered.jsonl'), ['advantage.filter_zero_variance=true', 'policy.skill=0.8']);
  assert.ok(filtered.droppedGroups > 0, 'a good player ties in some nodes');
  assert.ok(filtered.droppedGroups < filtered.groups, 'but not in all of them');
  const written = filtered.text.split('\n').filter((l) => l.length > 0);
  assert.equal(written.length, filtered.summary.samples - filtered.droppedSamples);
  const groupsWritten = new Set(written.map((l) => JSON.parse(l).group));
  assert.equal(groupsWritten.size, filtered.groups - filtered.droppedGroups);
  assert.match(filtered.printed, /dropped \d+ zero-variance groups/);
});

test('config mistakes are config errors naming the key; nothing is written', async () => {
  const out = join(dir, 'never.jsonl');
  await assert.rejects(run(out, ['rollout.kk=2']), (e: unknown) => e instanceof TroupeError && e.category === 'config' && /rollout\.kk: unknown key/.test(e.message));
  await assert.rejects(run(out, ['team.order=paralel']), /team\.order: expected one of sequential \| parallel, got "paralel"/);
  assert.equal(readdirSync(dir).includes('never.jsonl'), false);
});

test('the troupe command prints "troupe: config error: ..." and exits 2 on a bad config', () => {
  // Run main from source under tsx, or the compiled file when the tests run from dist/.
  const here = fileURLToPath(import.meta.url);
  const main = join(dirname(here), here.endsWith('.ts') ? 'main.ts' : 'main.js');
  const args = here.endsWith('.ts') ? ['--import', 'tsx', main] : [main];
  const result = spawnSync(process.execPath, [...args, 'rollout', config, '--out', join(dir, 'x.jsonl'), '--set', 'team.order=paralel'], {
    encoding: 'utf8',
  });
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stderr, /^troupe: config error: .*team\.order: expected one of sequential \| parallel, got "paralel"/m);
});

test('--out - writes the samples to stdout, the same bytes as a file, and the summary to stderr', async () => {
  const here = fileURLToPath(import.meta.url);
  const main = join(dirname(here), here.endsWith('.ts') ? 'main.ts' : 'main.js');
  const args = here.endsWith('.ts') ? ['--import', 'tsx', main] : [main];
  const result = spawnSync(process.execPath, [...args, 'rollout', config, '--out', '-'], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout, (await run(join(dir, 'same.jsonl'))).text);
  assert.match(result.stderr, /^rollout t: toy, 5 tasks/);
  assert.match(result.stderr, /wrote \d+ samples to stdout\n$/);
  assert.ok(!readdirSync(process.cwd()).includes('-'), 'no file named -');
});
