// docs/config.md must list every key of every section and every task option, with the
// default the code really uses: the page is checked against the schemas, not trusted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { builtInTask, builtInTaskNames } from '../envs/task-catalog.js';
import { configSchema, sections } from './config-schema.js';
import { allowedKeys } from './format-issues.js';
import { resolveConfig } from './resolve-config.js';
import { repoRoot } from '../util/repo-root.test-helper.js';

/** Rows of the doc's tables: key -> default cell, per `### task` heading ('' before any). */
function rows(): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>([['', new Map()]]);
  let heading = '';
  for (const line of readFileSync(join(repoRoot(), 'docs', 'config.md'), 'utf8').split('\n')) {
    const h = /^### (\S+)/.exec(line);
    if (h) out.set((heading = h[1]!), new Map());
    const row = /^\| `([^`]+)` \| ([^|]+) \|/.exec(line);
    if (row) out.get(heading)!.set(row[1]!, row[2]!.trim());
  }
  return out;
}

function checkDefault(cell: string, actual: unknown, key: string): void {
  const literal = /^`(.*)`$/.exec(cell);
  if (literal) assert.deepEqual(YAML.parse(literal[1]!), actual, `${key}: doc says ${cell}`);
  else assert.match(cell, /^\(.+\)$/, `${key}: a default is either a literal or a (description)`);
}

test('docs/config.md documents every config key with its real default', () => {
  const table = rows().get('')!;
  const resolved = resolveConfig({ tasks: { name: 'toy' } }) as unknown as Record<string, Record<string, unknown>>;
  const keys = ['name', 'seed', 'algorithm', ...Object.keys(sections).flatMap((s) => allowedKeys(configSchema, [s])!.map((k) => `${s}.${k}`))];
  for (const key of keys) {
    assert.ok(table.has(key), `docs/config.md lacks a row for ${key}`);
    const [section, sub] = key.split('.');
    const actual = sub === undefined ? resolved[section!] : resolved[section!]![sub];
    if (key !== 'team.max_turns' && key !== 'name' && key !== 'rollout.mode') checkDefault(table.get(key)!, actual, key);
  }
  assert.deepEqual([...table.keys()].sort(), keys.sort(), 'no rows for keys that do not exist');
});

test('docs/config.md documents every registered task option with its real default', () => {
  const all = rows();
  for (const name of builtInTaskNames()) {
    const task = builtInTask(name);
    const table = all.get(name);
    assert.ok(table, `docs/config.md lacks a "### ${name}" table`);
    const defaults = task.optionsSchema.parse({}) as Record<string, unknown>;
    const keys = allowedKeys(task.optionsSchema, []) ?? [];
    assert.deepEqual([...table.keys()].sort(), [...keys].sort(), name);
    for (const key of keys) checkDefault(table.get(key)!, defaults[key], `${name}.${key}`);
  }
});
