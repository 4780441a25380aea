// Which host folders the sandbox binds for the interpreters: an install prefix, never a folder
// the sandbox makes itself. A node installed two levels below /tmp (/tmp/x/node) used to bind
// /tmp read-only, and every sandboxed program then failed to start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { executablePrefix } from './probe-host.js';
import { testDir } from '../util/test-dir.test-helper.js';
import { sandboxSkip } from './sandbox-skip.test-helper.js';

test('an executable binds its install prefix, or its own folder when that prefix is the sandbox\'s', () => {
  assert.equal(executablePrefix('/opt/node-v20/bin/node'), '/opt/node-v20');
  assert.equal(executablePrefix('/usr/bin/python3.11'), '/usr');
  assert.equal(executablePrefix('/tmp/x/node'), '/tmp/x');
  assert.equal(executablePrefix('/tmp/a/bin/node'), '/tmp/a');
  assert.equal(executablePrefix('/opt/x/node'), '/opt');
});

test('a node binary two levels below /tmp still runs sandboxed programs', { skip: sandboxSkip }, () => {
  const dir = testDir('troupe-node-in-tmp-');
  mkdirSync(dir, { recursive: true });
  const node = join(dir, 'node'); // e.g. /tmp/troupe-node-in-tmp-XXXX/node: its prefix is /tmp
  copyFileSync(process.execPath, node);
  const sandbox = join(dirname(fileURLToPath(import.meta.url)), 'sandbox.js');
  const script = `import(${JSON.stringify(sandbox)}).then(async ({ Sandbox }) => { const s = new Sandbox({ concurrency: 1 }); const r = await s.run({ language: 'python', code: 'open("/tmp/t", "w").write("ok"); print(open("/tmp/t").read())' }); console.log(JSON.stringify({ reason: r.reason, stdout: r.stdout, stderr: r.stderr })); })`;
  const run = spawnSync(node, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  rmSync(node);
  assert.equal(run.status, 0, run.stderr);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  assert.deepEqual(result, { reason: 'ok', stdout: 'ok\n', stderr: '' }, run.stdout);
});
