// The --max-* flags of `troupe serve` reach the server they bound: --max-body-mb both servers,
// the others the Tinker one (given without --tinker, or out of range, they are one error line).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { makeTinyModelDir } from '../serve/tiny-model.test-helper.js';
import { API_PREFIX } from '../tinker/types.js';
import { testDir } from '../util/test-dir.test-helper.js';
import { spawnServer } from '../util/troupe-child.test-helper.js';
import { cliPath } from '../train/tiny-run.test-helper.js';

const folder = makeTinyModelDir();
process.on('exit', () => folder.remove());
const tinker = ['--tinker', '--model', `tiny=${folder.dir}`, '--no-hf-cache'];

async function post(url: string, body: unknown): Promise<{ status: number; error: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const json = (await res.json()) as { error?: string | { message: string } };
  return { status: res.status, error: typeof json.error === 'object' ? json.error.message : (json.error ?? '') };
}

test('a limit out of range, or a Tinker limit without --tinker, is one error line', () => {
  const cases: Array<[string[], RegExp]> = [
    [[...tinker, '--max-lora-rank', '0'], /^troupe: input error: --max-lora-rank must be an integer >= 1, got "0"$/],
    [[...tinker, '--max-body-mb', '1.5'], /^troupe: input error: --max-body-mb must be an integer >= 1, got "1\.5"$/],
    [[folder.dir, '--max-lora-rank', '8', '--max-num-samples', '2'], /^troupe: input error: --max-lora-rank, --max-num-samples bound the Tinker server; add --tinker \(the OpenAI server takes --max-body-mb only\)$/],
  ];
  for (const [args, expected] of cases) {
    const result = spawnSync(process.execPath, [cliPath, 'serve', ...args, '--port', '0'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr.trim(), expected);
  }
});

test('the Tinker server enforces the limits its flags set', async () => {
  const { server, url } = await spawnServer([...tinker, '--state-dir', testDir('troupe-serve-limits-'), '--max-num-samples', '2', '--max-lora-rank', '8', '--max-body-mb', '1']);
  try {
    const sample = await post(`${url}${API_PREFIX}/asample`, { base_model: 'tiny', prompt: { chunks: [{ tokens: [1, 2] }] }, num_samples: 3 });
    assert.deepEqual(sample, { status: 400, error: `num_samples: must be >= 1 and <= 2 (this server's --max-num-samples), got 3` });
    const session = ((await (await fetch(`${url}${API_PREFIX}/create_session`, { method: 'POST', body: '{}' })).json()) as { session_id: string }).session_id;
    const create = await post(`${url}${API_PREFIX}/create_model`, { session_id: session, base_model: 'tiny', lora_config: { rank: 16 } });
    assert.deepEqual(create, { status: 400, error: `lora_config.rank: must be >= 1 and <= 8 (this server's --max-lora-rank), got 16` });
    const big = await post(`${url}${API_PREFIX}/asample`, 'x'.repeat(1024 * 1024 + 1));
    assert.equal(big.status, 413);
    assert.match(big.error, /request body exceeds 1048576 bytes \(--max-body-mb\)/);
  } finally {
    await server.kill('SIGTERM');
  }
});

test('the OpenAI server takes --max-body-mb', async () => {
  const { server, url } = await spawnServer([folder.dir, '--max-body-mb', '1']);
  try {
    const big = await post(`${url}/v1/completions`, JSON.stringify({ model: 'tiny', prompt: 'x'.repeat(1024 * 1024) }));
    assert.deepEqual(big, { status: 413, error: 'request body exceeds 1048576 bytes (troupe serve --max-body-mb); send smaller requests' });
    const small = await post(`${url}/v1/completions`, { model: 'tiny', prompt: 'x'.repeat(100), max_tokens: 1 });
    assert.equal(small.status, 200, small.error);
  } finally {
    await server.kill('SIGTERM');
  }
});
