// docs/new-task.md shows the relay example's files verbatim (the consumer test installs the
// package and trains exactly these files); this keeps the page and the files in sync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../util/repo-root.test-helper.js';

test('docs/new-task.md quotes every file of examples/relay exactly as it is', () => {
  const root = repoRoot();
  const doc = readFileSync(join(root, 'docs', 'new-task.md'), 'utf8');
  const quoted = [...doc.matchAll(/<!-- file: (\S+) -->\n```(?:ts|yaml)\n([\s\S]*?)```\n/g)];
  assert.deepEqual(quoted.map((m) => m[1]).sort(), ['examples/relay/relay.ts', 'examples/relay/relay.yaml', 'examples/relay/train-relay.ts']);
  for (const [, path, body] of quoted) {
    assert.equal(body, readFileSync(join(root, path!), 'utf8'), `${path} changed: regenerate its block in docs/new-task.md`);
  }
});
