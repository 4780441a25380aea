// The warm start's demonstrated team: the run's own by default; warm_start.order/max_turns
// give examples/magrpo-train.yaml (a parallel team) the very demonstrations of the
// comparison's sequential AT-GRPO config, so both start from one base recipe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/load-config.js';
import type { ResolvedConfig } from '../config/resolve-config.js';
import { rolloutOptions, taskOptions, teamOptions } from '../config/runtime-options.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { builtInTask } from '../envs/task-catalog.js';
import type { Env, TaskSource, Team } from '../envs/types.js';
import { collectDemonstrations } from './demonstrations.js';
import { demonstrationTeam } from './demonstration-team.js';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

const runTeam = (config: ResolvedConfig) => builtInTask(config.tasks.name).createTeam(taskOptions(config), teamOptions(config)) as Team<Env>;

async function demonstrations(config: ResolvedConfig) {
  const task = builtInTask(config.tasks.name);
  return collectDemonstrations({
    team: demonstrationTeam(config, runTeam(config)).team,
    source: task.createSource(taskOptions(config), config.seed) as TaskSource<Env>,
    scripted: task.scripted,
    skill: config.warm_start.skill,
    episodes: 3,
    rollout: rolloutOptions(config),
    tokenizer: CharTokenizer.standard(),
    seed: config.seed,
    maxTokens: 128,
  });
}

test('without warm_start.order/max_turns the run team itself is demonstrated', () => {
  const config = loadConfig(join(repoRoot(), 'examples', 'plan-path-train.yaml'));
  const team = runTeam(config);
  const demo = demonstrationTeam(config, team);
  assert.equal(demo.team, team);
  assert.equal(demo.key, undefined);
});

test('warm_start.order and max_turns replace the run team for the demonstrations only', () => {
  const config = loadConfig(join(repoRoot(), 'examples', 'magrpo-train.yaml'), ['warm_start.order=sequential', 'warm_start.max_turns=24']);
  const demo = demonstrationTeam(config, runTeam(config));
  assert.equal(config.team.order, 'parallel');
  assert.equal(demo.team.order, 'sequential');
  assert.equal(demo.team.maxTurns, 24);
  assert.deepEqual(demo.key, { order: 'sequential', max_turns: 24 });
});

test('examples/magrpo-train.yaml demonstrates exactly what the comparison AT-GRPO config does', async () => {
  const magrpo = loadConfig(join(repoRoot(), 'examples', 'magrpo-train.yaml'));
  const atGrpo = loadConfig(join(repoRoot(), 'experiments', 'compare-algorithms.yaml'));
  const [mine, theirs] = await Promise.all([demonstrations(magrpo), demonstrations(atGrpo)]);
  assert.ok(mine.length > 6);
  assert.deepEqual(mine, theirs);
  // The parallel team's own demonstrations would differ: plan never sees a proposal there.
  const own = await demonstrations(loadConfig(join(repoRoot(), 'examples', 'magrpo-train.yaml'), ['warm_start.order=parallel', 'warm_start.max_turns=12']));
  assert.notDeepEqual(own, theirs);
});
