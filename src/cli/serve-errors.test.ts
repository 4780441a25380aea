// `troupe serve` on a port it cannot have: one error line naming the port and the fix, exit
// code 2, no stack trace; for the OpenAI server and the Tinker one alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { makeTinyModelDir } from '../serve/tiny-model.test-helper.js';
import { cliPath as cli } from '../train/tiny-run.test-helper.js';

const folder = makeTinyModelDir();
process.on('exit', () => folder.remove());

function serve(args: string[]): { status: number | null; stderr: string } {
  return spawnSync(process.execPath, [cli, 'serve', ...args], { encoding: 'utf8', timeout: 60_000 });
}

function assertOneLine(result: { status: number | null; stderr: string }, expected: RegExp): void {
  assert.equal(result.status, 2, result.stderr);
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0]!, expected);
}

test('a port out of range is refused before anything loads', () => {
  assertOneLine(serve([folder.dir, '--port', '99999']), /^troupe: input error: --port must be an integer from 0 to 65535, got "99999"$/);
  assertOneLine(serve(['--tinker', '--model', folder.dir, '--no-hf-cache', '--port', '99999']), /--port must be an integer from 0 to 65535/);
});

test('a busy port: one line saying so, for the OpenAI and the Tinker server', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = String((holder.address() as { port: number }).port);
  try {
    const expected = new RegExp(`^troupe: input error: port ${port} on 127\\.0\\.0\\.1 is already in use; .*choose another --port`);
    assertOneLine(serve([folder.dir, '--port', port]), expected);
    assertOneLine(serve(['--tinker', '--model', folder.dir, '--no-hf-cache', '--port', port]), expected);
  } finally {
    holder.close();
  }
});

test('--sampler-thread without --tinker: one line naming the fix', () => {
  assertOneLine(serve([folder.dir, '--sampler-thread']), /--sampler-thread samples the Tinker API's asample requests on a thread of its own; add --tinker/);
});
