import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Command } from 'commander';
import { repoRoot } from '../util/repo-root.test-helper.js';
import { commandTable } from './command-table.js';

test('each command-table summary is the loaded command\'s own description', async () => {
  for (const entry of commandTable) {
    const program = new Command();
    await entry.load(program);
    const loaded = program.commands.find((c) => c.name() === entry.name);
    assert.ok(loaded, `${entry.name}: its loader added no command of that name`);
    assert.equal(loaded.description(), entry.summary, `${entry.name}: update its summary in command-table.ts`);
  }
});

test('troupe --help lists every command; troupe train --help shows the real command\'s options', () => {
  const main = join(repoRoot(), 'dist', 'src', 'cli', 'main.js');
  const help = spawnSync(process.execPath, [main, '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0, help.stderr);
  for (const entry of commandTable) assert.match(help.stdout, new RegExp(`^  ${entry.name}\\b`, 'm'));
  const train = spawnSync(process.execPath, [main, 'train', '--help'], { encoding: 'utf8' });
  assert.equal(train.status, 0, train.stderr);
  assert.match(train.stdout, /--resume/);
  const typo = spawnSync(process.execPath, [main, 'trian'], { encoding: 'utf8' });
  assert.notEqual(typo.status, 0);
  assert.match(typo.stderr, /unknown command 'trian'/);
});
