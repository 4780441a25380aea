// checkpoint-flags.json: a damaged file is kept aside with one warning, never silently
// overwritten by the next publish or ttl change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDir } from '../../util/test-dir.test-helper.js';
import { CheckpointFlags, FLAGS_FILE } from './checkpoint-flags.js';

test('a damaged flags file is moved aside with one warning; later changes start a new one', () => {
  const stateDir = join(testDir('troupe-ckpt-flags-'), 'state');
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(join(stateDir, FLAGS_FILE), '{"tinker://run/weights/a": {"public": tr');
  const warnings: string[] = [];
  const flags = new CheckpointFlags(stateDir, (line) => warnings.push(line));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /^warning: .*checkpoint-flags\.json does not parse \(.+\); publish flags and TTLs set since the saves are reset \(kept as checkpoint-flags\.json\.damaged\)$/);
  assert.equal(readFileSync(join(stateDir, `${FLAGS_FILE}.damaged`), 'utf8'), '{"tinker://run/weights/a": {"public": tr', 'the damaged text is kept as it was');
  assert.deepEqual(flags.get('tinker://run/weights/a'), {});
  flags.set('tinker://run/weights/b', { public: true });
  assert.deepEqual(new CheckpointFlags(stateDir, () => assert.fail('the new file parses')).get('tinker://run/weights/b'), { public: true });
  assert.ok(existsSync(join(stateDir, `${FLAGS_FILE}.damaged`)));
});
