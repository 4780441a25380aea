// Every example config must validate and start with the command that runs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from './load-config.js';
import { repoRoot } from '../util/repo-root.test-helper.js';

const examples = join(repoRoot(), 'examples');
const files = readdirSync(examples).filter((f) => f.endsWith('.yaml')).sort();

test('the examples folder has the expected configs', () => {
  for (const task of ['plan-path', 'sokoban', 'sudoku']) {
    for (const name of [`${task}.yaml`, `${task}-single.yaml`]) assert.ok(files.includes(name), name);
  }
  assert.ok(files.includes('toy.yaml'));
});

for (const file of files) {
  test(`examples/${file} validates and begins with its command`, () => {
    const path = join(examples, file);
    const config = loadConfig(path);
    const first = readFileSync(path, 'utf8').split('\n')[0]!;
    assert.match(first, new RegExp(`^# npx troupe \\w+ examples/${file.replace('.', '\\.')}( |$)`));
    if (file.endsWith('-single.yaml') || file === 'humaneval.yaml') {
      assert.equal(config.team.variant, 'single');
      assert.equal(config.rollout.mode, 'independent');
    } else {
      assert.equal(config.team.variant, 'team');
      assert.equal(config.rollout.mode, config.algorithm === 'magrpo' ? 'joint' : 'tree');
    }
  });
}
