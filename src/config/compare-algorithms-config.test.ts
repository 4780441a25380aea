// experiments/compare-algorithms.sh trains three methods on "the same team task, from the same
// base recipe": its pinned AT-GRPO config and examples/magrpo-train.yaml must agree on the task,
// the model and the warm-start demonstrations, and the single-agent variant the script derives
// with --set must validate. A change to one file that the other does not follow fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './load-config.js';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    assert.notEqual(parent, dir, 'package.json not found');
    dir = parent;
  }
  return dir;
}

const root = repoRoot();
const pinned = join(root, 'experiments', 'compare-algorithms.yaml');
const magrpo = join(root, 'examples', 'magrpo-train.yaml');

test('the comparison pins its own AT-GRPO config with the comparison budget', () => {
  const config = loadConfig(pinned);
  assert.equal(config.algorithm, 'at-grpo');
  assert.equal(config.team.order, 'sequential');
  assert.equal(config.train.steps, 100);
  assert.equal(config.train.eval_every, 25);
});

test('MAGRPO and the pinned AT-GRPO config share the task, the model and the demonstrations', () => {
  const at = loadConfig(pinned);
  const mg = loadConfig(magrpo);
  assert.equal(mg.algorithm, 'magrpo');
  assert.deepEqual(mg.tasks, at.tasks);
  assert.deepEqual(mg.model, at.model);
  assert.equal(mg.team.variant, at.team.variant);
  assert.equal(mg.team.format, at.team.format);
  assert.equal(mg.warm_start.skill, at.warm_start.skill);
  assert.equal(mg.train.steps, at.train.steps);
  assert.equal(mg.train.eval_tasks, at.train.eval_tasks);
  assert.equal(mg.train.eval_temperature, at.train.eval_temperature);
});

test("the script's single-agent GRPO overrides give one agent with independent episodes", () => {
  const single = loadConfig(pinned, ['algorithm=grpo', 'team.variant=single', 'rollout.tasks=6']);
  assert.equal(single.team.variant, 'single');
  assert.equal(single.rollout.mode, 'independent');
  assert.deepEqual(single.tasks, loadConfig(pinned).tasks);
});
