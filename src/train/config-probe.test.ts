// Property: a mutated example config (keys deleted, wrong types, huge, negative and non-finite
// numbers, unknown enum words) either starts or fails with one error line, never a stack
// trace. The npm test plays a seeded sample; scripts/mutate-configs.mjs runs 1000, each
// with a time limit, to find hangs too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { mutateConfig } from '../config/mutate-config.js';
import { repoRoot } from '../util/repo-root.test-helper.js';
import { probeConfig } from './config-probe.js';
import { cliPath, tinyRun } from './tiny-run.test-helper.js';

const examples = join(repoRoot(), 'examples');
const files = readdirSync(examples).filter((f) => f.endsWith('.yaml')).sort();
const parsed = (file: string) => YAML.parse(readFileSync(join(examples, file), 'utf8')) as Record<string, any>;

test('the reported configs are refused at load with one line, before any work', async () => {
  const base = parsed('plan-path-train.yaml');
  const cases: Array<[string, (c: Record<string, any>) => void, RegExp]> = [
    ['warm_start.epochs: 1e12', (c) => (c.warm_start.epochs = 1e12), /warm_start\.epochs/],
    ['rollout.stop: [""]', (c) => (c.rollout.stop = ['']), /rollout\.stop.*must not be empty/],
    ['model.hidden: 60000', (c) => Object.assign(c.model, { hidden: 60000, heads: 4, intermediate: 200000 }), /need ~\d+ GiB for weights, gradients and Adam moments, more than this machine's/],
  ];
  for (const [name, mutate, expected] of cases) {
    const config = structuredClone(base);
    mutate(config);
    const outcome = await probeConfig(config, 'plan-path-train.yaml');
    assert.equal(outcome.kind, 'error-line', `${name}: ${JSON.stringify(outcome)}`);
    assert.match((outcome as { line: string }).line, expected, name);
  }
  assert.deepEqual(await probeConfig(base, 'plan-path-train.yaml'), { kind: 'starts' });
});

test('troupe train refuses them with one config error line before it makes a run folder or trains', () => {
  const { dir, config } = tinyRun({ prefix: 'troupe-bounds-', map: 'shared', train: '{ steps: 1, eval_every: 0, eval_tasks: 2, checkpoint_every: 0, samples_every: 0 }' });
  const cases: Array<[string, RegExp]> = [
    ['warm_start.epochs=1e12', /^troupe: config error: .*warm_start\.epochs: expected number <= \d+, got 1000000000000 \(from --set warm_start\.epochs=1e12\)$/],
    ['rollout.stop=[""]', /^troupe: config error: .*rollout\.stop\[0\]: a stop string must not be empty/],
  ];
  for (const [set, expected] of cases) {
    const runDir = join(dir, 'run');
    const result = spawnSync(process.execPath, [cliPath, 'train', config, '--set', set, '--run-dir', runDir], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.status, 2, `${set}: ${result.stderr}`);
    assert.match(result.stderr.trim(), expected, set);
    assert.equal(result.stderr.trim().includes('\n'), false, `${set}: one line, no stack trace`);
    assert.equal(existsSync(runDir), false, `${set}: refused before the run folder or the warm start`);
  }
});

test('mutated example configs: a start or one error line, never a stack trace', async () => {
  const perFile = Number(process.env.TROUPE_MUTANTS_PER_FILE ?? 4);
  const counts = { starts: 0, 'error-line': 0, crash: 0 };
  const crashes: string[] = [];
  for (const [i, file] of files.entries()) {
    const original = parsed(file);
    for (let n = 0; n < perFile; n++) {
      const mutant = mutateConfig(original, i * 1000 + n);
      const outcome = await probeConfig(mutant.config, file);
      counts[outcome.kind]++;
      if (outcome.kind === 'crash') crashes.push(`${file}: ${mutant.change}\n${outcome.detail}`);
    }
  }
  assert.deepEqual(crashes, []);
  // Both outcomes occur, so the probe neither refuses nor accepts everything.
  assert.ok(counts.starts > 0 && counts['error-line'] > 0, JSON.stringify(counts));
});
