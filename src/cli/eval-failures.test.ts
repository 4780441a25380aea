// `troupe eval` against a model that cannot answer: progress lines while it waits, and a
// failure (not "success 0%", exit 0) when every completion failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cliPath as cli } from '../train/tiny-run.test-helper.js';
import { TroupeError } from '../util/errors.js';
import { testDir } from '../util/test-dir.test-helper.js';
import { runEval } from '../api/run-eval.js';

const dir = testDir('troupe-eval-fail-');

function configFor(port: number): string {
  const path = join(dir, `openai-${port}.yaml`);
  writeFileSync(path, `name: t\ntasks: { name: toy }\npolicy: { kind: openai, openai: { base_url: "http://127.0.0.1:${port}/v1", model: m, max_retries: 0, timeout_ms: 5000 } }\ntrain: { eval_tasks: 3 }\n`);
  return path;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('a dead server: eval exits non-zero with one line naming the first error', async () => {
  const result = spawnSync(process.execPath, [cli, 'eval', configFor(await closedPort())], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(result.status, 2, result.stderr);
  assert.equal(result.stdout, '', 'no score is printed');
  const lines = result.stderr.trim().split('\n').filter((l) => !l.includes('completions so far'));
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0]!, /^troupe: policy error: every one of the \d+ completions failed to generate \(http:\/\/127\.0\.0\.1:\d+\/v1 .*\), so there is no score; the first error: .+/);
});

test('a slow server: progress lines while waiting, then the failure', async () => {
  // Answers every request after 300 ms with a server error.
  const server = createHttpServer((_, res) => setTimeout(() => res.writeHead(503).end('{"error":{"message":"busy"}}'), 300));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let written = '';
  try {
    const port = (server.address() as { port: number }).port;
    await assert.rejects(
      runEval({ target: configFor(port), progress: { stream: { write: (t: string) => (written += t) }, everyMs: 100 } }),
      (error: unknown) => error instanceof TroupeError && error.category === 'policy' && /every one of the \d+ completions failed/.test(error.message),
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
  const progress = written.split('\n').filter(Boolean);
  assert.ok(progress.length >= 2, written);
  for (const line of progress) assert.match(line, /^eval t: \d+ completions so far( \(\d+ failed\))?, \d+s$/);
});
