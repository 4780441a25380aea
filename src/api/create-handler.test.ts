// createHandler: the routes of `troupe serve` and `troupe serve --tinker` answered in process,
// Request in, Response out, with no port; the same refusals as over HTTP; close() refuses what
// comes after it. serve() is that handler on a port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTinyModelDir } from '../serve/tiny-model.test-helper.js';

const { createHandler, serve } = await import('troupe');

const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

test('the OpenAI handler answers models, completions and typed 4xx in process, and 503 once closed', async () => {
  const folder = makeTinyModelDir();
  const handler = await createHandler({ model: folder.dir });
  try {
    const models = (await (await handler.fetch(new Request('http://app/v1/models'))).json()) as { data: { id: string }[] };
    assert.deepEqual(models.data.map((m) => m.id), ['tiny']);
    const done = await handler.fetch(new Request('http://app/v1/completions', json({ model: 'tiny', prompt: 'ab', max_tokens: 3, temperature: 0 })));
    assert.equal(done.status, 200);
    assert.equal(((await done.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens, 3);
    const bad = await handler.fetch(new Request('http://app/v1/completions', json({ model: 'tiny', prompt: 'ab', n: 0 })));
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { param: string } }).error.param, 'n');
    const wrongVerb = await handler.fetch(new Request('http://app/v1/models', json({})));
    assert.equal(wrongVerb.status, 405);
    assert.equal(wrongVerb.headers.get('allow'), 'GET');
    const streamed = await handler.fetch(new Request('http://app/v1/completions', json({ model: 'tiny', prompt: 'ab', max_tokens: 2, stream: true })));
    assert.equal(streamed.headers.get('content-type'), 'text/event-stream');
    assert.match(await streamed.text(), /data: \[DONE\]\n\n$/);
  } finally {
    await handler.close();
    folder.remove();
  }
  assert.equal((await handler.fetch(new Request('http://app/health'))).status, 503);
});

test('the Tinker handler answers the Tinker API in process; serve({ tinker: true }) puts it on a port', async () => {
  const folder = makeTinyModelDir();
  const handler = await createHandler({ tinker: true, models: [`tiny=${folder.dir}`], hfCache: false });
  const server = await serve({ tinker: true, models: [`tiny=${folder.dir}`], hfCache: false, port: 0 });
  try {
    const caps = (await (await handler.fetch(new Request('http://app/api/v1/get_server_capabilities'))).json()) as { supported_models: { model_name: string }[] };
    assert.deepEqual(caps.supported_models.map((m) => m.model_name), ['tiny']);
    const refused = await handler.fetch(new Request('http://app/api/v1/retrieve_future', json({ request_id: 7 })));
    assert.equal(refused.status, 400);
    assert.deepEqual(await refused.json(), { error: 'request_id: must be a non-empty string, got 7', category: 'user', detail: 'request_id: must be a non-empty string, got 7' });
    const overHttp = (await (await fetch(`${server.url}/api/v1/get_server_capabilities`)).json()) as typeof caps;
    assert.deepEqual(overHttp, caps);
  } finally {
    await server.close();
    await handler.close();
    folder.remove();
  }
});
