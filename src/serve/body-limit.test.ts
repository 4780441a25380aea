// A request body over the OpenAI server's limit (8 MiB by default) is answered 413 with the
// JSON error, which the client, still sending, reads: not a connection reset. (The Tinker
// server shares the body reader; its own test is in tinker/tinker-hostile.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { loadServedModels } from './load-served-models.js';
import { startServer } from './server.js';
import { makeTinyModelDir } from './tiny-model.test-helper.js';

test('a 9 MiB body is answered 413 naming the limit, and the server keeps serving', async () => {
  const folder = makeTinyModelDir();
  const server = await startServer({ models: loadServedModels(createReferenceKernels(), folder.dir), port: 0, log: () => {} });
  try {
    const body = JSON.stringify({ model: 'tiny', prompt: 'x'.repeat(9 * 1024 * 1024) });
    const res = await fetch(`${server.url}/v1/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const json = (await res.json()) as { error: { message: string; code: string } };
    assert.equal(res.status, 413);
    assert.match(json.error.message, /^request body exceeds 8388608 bytes \(troupe serve --max-body-mb\); send smaller requests$/);
    assert.equal(json.error.code, 'request_too_large');
    assert.equal((await fetch(`${server.url}/v1/models`)).status, 200);
  } finally {
    await server.close();
    folder.remove();
  }
});
