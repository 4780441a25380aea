import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configError } from './config-error.test-helper.js';
import { resolveConfig } from './resolve-config.js';
import { rolloutOptions } from './runtime-options.js';

const toy = { name: 'toy' };

test('algorithm magrpo: mode joint, parallel turns, the reinforce loss, MAGRPO defaults', () => {
  const config = resolveConfig({ tasks: toy, algorithm: 'magrpo' });
  assert.equal(config.rollout.mode, 'joint');
  assert.equal(config.team.order, 'parallel');
  assert.equal(config.train.loss, 'reinforce');
  assert.deepEqual(config.magrpo, { joint: 'aligned', gamma: 0.9, credit: 'sum', expand: 'all', reward: 'global' });
  assert.deepEqual(rolloutOptions(config).joint, config.magrpo);
  // The other algorithms keep their defaults and get no joint options.
  const tree = resolveConfig({ tasks: toy });
  assert.equal(tree.team.order, 'sequential');
  assert.equal(tree.train.loss, 'ppo-clip');
  assert.equal(rolloutOptions(tree).joint, undefined);
});

test('magrpo settings given in the file win; cross defaults to expand best', () => {
  const config = resolveConfig({
    tasks: toy,
    algorithm: 'magrpo',
    magrpo: { joint: 'cross', gamma: 1, credit: 'mean', reward: 'global+local' },
    train: { loss: 'ppo-clip' },
    team: { order: 'parallel' },
  });
  assert.deepEqual(config.magrpo, { joint: 'cross', gamma: 1, credit: 'mean', expand: 'best', reward: 'global+local' });
  assert.equal(config.train.loss, 'ppo-clip');
  assert.equal(resolveConfig({ tasks: toy, algorithm: 'magrpo', magrpo: { joint: 'cross', expand: 'all' } }).magrpo.expand, 'all');
});

test('bad magrpo values name the key, the allowed values and the given value', () => {
  assert.match(configError(() => resolveConfig({ tasks: toy, algorithm: 'magrpo', magrpo: { joint: 'crossed' } })), /magrpo\.joint: expected one of aligned \| cross, got "crossed"/);
  assert.match(configError(() => resolveConfig({ tasks: toy, algorithm: 'magrpo', magrpo: { gamma: 1.5 } })), /magrpo\.gamma/);
  assert.match(configError(() => resolveConfig({ tasks: toy, algorithm: 'magrpo', magrpo: { gamma: -0.1 } })), /magrpo\.gamma/);
  assert.match(configError(() => resolveConfig({ tasks: toy, algorithm: 'magrpo', magrpo: { gama: 1 } })), /magrpo\.gama: unknown key; allowed keys here: joint, gamma, credit, expand/);
});

test('each algorithm requires its own rollout mode', () => {
  assert.match(
    configError(() => resolveConfig({ tasks: toy, algorithm: 'magrpo', rollout: { mode: 'tree' } })),
    /rollout\.mode: algorithm magrpo samples with mode joint, got "tree"; drop rollout.mode or use algorithm at-grpo/,
  );
  assert.match(
    configError(() => resolveConfig({ tasks: toy, algorithm: 'at-grpo', rollout: { mode: 'joint' } })),
    /rollout\.mode: algorithm at-grpo samples with mode tree, got "joint"; drop rollout.mode or use algorithm magrpo/,
  );
  assert.match(configError(() => resolveConfig({ tasks: toy, algorithm: 'grpo', rollout: { mode: 'joint' } })), /use algorithm magrpo/);
  assert.equal(resolveConfig({ tasks: toy, algorithm: 'magrpo', rollout: { mode: 'joint' } }).rollout.mode, 'joint');
});

test('magrpo keys with another algorithm, and sequential turns with magrpo, are errors', () => {
  assert.match(
    configError(() => resolveConfig({ tasks: toy, algorithm: 'at-grpo', magrpo: { joint: 'cross' } })),
    /magrpo: the magrpo section only applies to algorithm magrpo, got algorithm at-grpo/,
  );
  assert.match(
    configError(() => resolveConfig({ tasks: toy, algorithm: 'magrpo', team: { order: 'sequential' } })),
    /team\.order: algorithm magrpo plays the roles in parallel.*set team\.order: parallel/,
  );
});
