import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from './load-config.js';
import { configError } from './config-error.test-helper.js';
import { resolveConfig } from './resolve-config.js';
import { testDir } from '../util/test-dir.test-helper.js';

const dir = testDir('troupe-config-');
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test('a minimal config resolves with every default filled, max_turns from the task', () => {
  const config = resolveConfig({ tasks: { name: 'toy' } });
  assert.equal(config.name, 'toy');
  assert.equal(config.seed, 1);
  assert.deepEqual(config.tasks, { name: 'toy', max_target: 9 });
  assert.deepEqual(config.team, { variant: 'team', format: 'compact', order: 'sequential', alpha: 1, max_turns: 3 });
  assert.deepEqual(config.rollout, {
    mode: 'tree',
    k: 4,
    continue: 'best',
    tasks: 8,
    temperature: 1,
    top_p: 1,
    top_k: 0,
    max_tokens: 48,
    stop: ['\n'],
  });
  assert.deepEqual(config.advantage, { estimator: 'grpo', filter_zero_variance: false, std_floor: 0, group_by: 'task-turn-role' });
  assert.deepEqual(config.policy, { kind: 'scripted', skill: 0.5, map: 'shared', models: {} });
  assert.equal(config.algorithm, 'at-grpo');
});

test('the rollout mode follows the algorithm, and a contradiction is an error', () => {
  assert.equal(resolveConfig({ tasks: { name: 'toy' }, algorithm: 'grpo' }).rollout.mode, 'independent');
  assert.match(
    configError(() => resolveConfig({ tasks: { name: 'toy' }, algorithm: 'at-grpo', rollout: { mode: 'independent' } })),
    /rollout\.mode: algorithm at-grpo samples with mode tree/,
  );
});

test('rollout.continue picks the continued branch in tree mode and is an error elsewhere', () => {
  assert.equal(resolveConfig({ tasks: { name: 'toy' }, rollout: { continue: 'sampled' } }).rollout.continue, 'sampled');
  assert.deepEqual(resolveConfig({ tasks: { name: 'toy' }, rollout: { continue: { tool: 'sampled' } } }).rollout.continue, { tool: 'sampled' });
  assert.match(configError(() => resolveConfig({ tasks: { name: 'toy' }, rollout: { continue: 'random' } })), /rollout\.continue/);
  assert.equal(resolveConfig({ tasks: { name: 'toy' }, rollout: { continue: 0.25 } }).rollout.continue, 0.25);
  assert.deepEqual(resolveConfig({ tasks: { name: 'toy' }, rollout: { continue: { plan: 0.5 } } }).rollout.continue, { plan: 0.5 });
  assert.match(configError(() => resolveConfig({ tasks: { name: 'toy' }, rollout: { continue: 1.5 } })), /rollout\.continue/);
  assert.match(
    configError(() => resolveConfig({ tasks: { name: 'toy' }, algorithm: 'grpo', rollout: { continue: 'sampled' } })),
    /rollout\.continue: only tree sampling \(algorithm at-grpo\) picks a branch to continue, got "sampled" with algorithm grpo/,
  );
});

test('values given in the file win over defaults, including the task options', () => {
  const path = file('full.yaml', 'name: run\nseed: 9\ntasks:\n  name: toy\n  max_target: 20\nteam:\n  max_turns: 6\n  alpha: 0.5\nalgorithm: grpo\nrollout:\n  mode: independent\n  stop: []\n');
  const config = loadConfig(path);
  assert.equal(config.name, 'run');
  assert.equal(config.seed, 9);
  assert.equal(config.tasks.max_target, 20);
  assert.equal(config.team.max_turns, 6);
  assert.equal(config.team.alpha, 0.5);
  assert.equal(config.rollout.mode, 'independent');
  assert.deepEqual(config.rollout.stop, []);
});

test('a bad enum names the key path, the allowed values and the given value', () => {
  const message = configError(() => loadConfig(file('enum.yaml', 'tasks: {name: toy}\nteam:\n  order: paralel\n')));
  assert.match(message, /enum\.yaml: team\.order: expected one of sequential \| parallel, got "paralel"/);
});

test('an unknown key is an error naming its path and the keys allowed there', () => {
  const message = configError(() => loadConfig(file('unknown.yaml', 'tasks: {name: toy}\nrollout:\n  kk: 3\n')));
  assert.match(message, /rollout\.kk: unknown key; allowed keys here: mode, k, continue, tasks, temperature/);
  assert.match(configError(() => resolveConfig({ tasks: { name: 'toy' }, trian: {} })), /trian: unknown key/);
});

test('the task options are validated by the task schema, with tasks.* paths', () => {
  assert.match(configError(() => resolveConfig({ tasks: { name: 'toy', max_target: 1 } })), /tasks\.max_target: expected number >= 2, got 1/);
  assert.match(configError(() => resolveConfig({ tasks: { name: 'toy', size: 3 } })), /tasks\.size: unknown key/);
  assert.match(configError(() => resolveConfig({ tasks: { name: 'chess' } })), /tasks\.name: unknown task "chess"; known tasks: .*toy/);
  assert.match(configError(() => resolveConfig({ team: {} })), /tasks: missing/);
});

test('every problem is reported at once', () => {
  const message = configError(() => resolveConfig({ tasks: { name: 'toy' }, rollout: { k: 0, top_p: 2 }, team: { alpha: 'x' } }));
  assert.match(message, /3 problems/);
  assert.match(message, /rollout\.k: expected number >= 1, got 0/);
  assert.match(message, /rollout\.top_p: expected number <= 1, got 2/);
  assert.match(message, /team\.alpha: expected a number, got "x"/);
});

test('unknown policy kinds and an openai kind without its server are clear errors', () => {
  assert.match(configError(() => resolveConfig({ tasks: { name: 'toy' }, policy: { kind: 'openai' } })), /policy\.openai: kind openai needs an openai section/);
  assert.match(configError(() => resolveConfig({ tasks: { name: 'toy' }, policy: { kind: 'openai', openai: { base_url: 'localhost', model: 'm' } } })), /policy\.openai\.base_url: base_url must be an http\(s\) URL/);
  assert.match(configError(() => resolveConfig({ tasks: { name: 'toy' }, policy: { kind: 'gpt' } })), /policy\.kind: expected one of scripted \| embedded/);
});

test('bad YAML names the file and the line', () => {
  const path = file('broken.yaml', 'tasks:\n  name: toy\nteam: {order: sequential\nrollout:\n  k: 2\n');
  assert.match(configError(() => loadConfig(path)), /broken\.yaml:\d+:\d+: bad YAML/);
  const dup = file('dup.yaml', 'tasks:\n  name: toy\nseed: 1\nseed: 2\n');
  assert.match(configError(() => loadConfig(dup)), /dup\.yaml:4:1: bad YAML/);
  assert.match(configError(() => loadConfig(join(dir, 'missing.yaml'))), /cannot read config file/);
  assert.match(configError(() => loadConfig(file('list.yaml', '- 1\n- 2\n'))), /expected a mapping of sections/);
});

test('JSON configs load too', () => {
  const config = loadConfig(file('c.json', '{"tasks": {"name": "toy"}, "rollout": {"k": 2}}'));
  assert.equal(config.rollout.k, 2);
});

test('--set overrides any key with YAML scalars and lists', () => {
  const path = file('base.yaml', 'tasks:\n  name: toy\nrollout:\n  k: 4\n');
  const config = loadConfig(path, ['rollout.k=8', 'advantage.filter_zero_variance=true', 'rollout.stop=[]', 'tasks.max_target=15', 'name=other', 'team.alpha=0.25']);
  assert.equal(config.rollout.k, 8);
  assert.equal(config.advantage.filter_zero_variance, true);
  assert.deepEqual(config.rollout.stop, []);
  assert.equal(config.tasks.max_target, 15);
  assert.equal(config.name, 'other');
  assert.equal(config.team.alpha, 0.25);
  assert.deepEqual(loadConfig(path, ['rollout.stop=["\\n", "END"]']).rollout.stop, ['\n', 'END']);
  assert.equal(loadConfig(path, ['advantage.std_floor=0.1']).advantage.std_floor, 0.1);
  assert.match(configError(() => loadConfig(path, ['advantage.std_floor=-0.1'])), /std_floor must be at least 0/);
});

test('--set of an unknown key or a bad value is the same error as in a file', () => {
  const path = file('base2.yaml', 'tasks:\n  name: toy\n');
  const fromSet = configError(() => loadConfig(path, ['team.ordr=parallel']));
  const fromFile = configError(() => loadConfig(file('base3.yaml', 'tasks:\n  name: toy\nteam:\n  ordr: parallel\n')));
  assert.match(fromSet, /team\.ordr: unknown key; allowed keys here/);
  assert.equal(fromSet.split(': ').slice(1).join(': ').replace(/ \(from --set .*\)$/, ''), fromFile.split(': ').slice(1).join(': '));
  assert.match(fromSet, /\(from --set team\.ordr=parallel\)/);
  assert.match(configError(() => loadConfig(path, ['rollout.mode=forest'])), /rollout\.mode: expected one of tree \| independent \| joint, got "forest"/);
  assert.match(configError(() => loadConfig(path, ['nokey'])), /--set nokey: expected key=value/);
  assert.match(configError(() => loadConfig(path, ['seed.deep=1'])), /seed: expected a number/);
});
