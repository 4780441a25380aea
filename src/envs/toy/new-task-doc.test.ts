// docs/new-task.md shows the toy task's files verbatim; this keeps the page and the code in sync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../util/repo-root.test-helper.js';

test('docs/new-task.md quotes every toy task file exactly as it is', () => {
  const root = repoRoot();
  const doc = readFileSync(join(root, 'docs', 'new-task.md'), 'utf8');
  const quoted = [...doc.matchAll(/<!-- file: (\S+) -->\n```ts\n([\s\S]*?)```\n/g)];
  assert.deepEqual(quoted.map((m) => m[1]).sort(), ['src/envs/toy/index.ts', 'src/envs/toy/toy-env.ts', 'src/envs/toy/toy-roles.ts']);
  for (const [, path, body] of quoted) {
    assert.equal(body, readFileSync(join(root, path!), 'utf8'), `${path} changed: regenerate its block in docs/new-task.md`);
  }
});
