// Hostile and mistaken requests against the Tinker server: each is refused at the HTTP edge
// with a typed 4xx naming the field (never a 500, a hang or a destroyed adapter), and the
// server keeps serving. One test per attack of the hardening review.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createReferenceKernels } from '../../engine/kernels/reference.js';
import { TinkerClient, type TinkerTrainingModel } from '../../tinker/tinker-client.js';
import { encodeForwardBackwardRequest } from '../../tinker/tinker-proto.js';
import { API_PREFIX, DEFAULT_ADAM, PROTOBUF_CONTENT_TYPE, type Datum } from '../../tinker/types.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import type { TinyModelDir } from '../tiny-model.test-helper.js';
import { startTinkerTestServer } from './tinker-test-server.test-helper.js';
import { startTinkerServer, type RunningTinkerServer } from './tinker-server.js';

let stateDir: string;
let folder: TinyModelDir;
let server: RunningTinkerServer;
let client: TinkerClient;
let model: TinkerTrainingModel;
let close: () => Promise<void>;
const MAX_BODY = 4 * 1024 * 1024;

before(async () => {
  stateDir = join(testDir('troupe-tinker-hostile-'), 'state');
  ({ folder, server, client, model, close } = await startTinkerTestServer({ stateDir, limits: { maxBodyBytes: MAX_BODY, maxLoraRank: 4096 } }));
});

after(() => close());

const TEXT = [3, 17, 42, 8, 25];

async function post(route: string, body: unknown): Promise<{ status: number; json: { error?: string; category?: string; request_id?: string } }> {
  const res = await fetch(`${server.url}${API_PREFIX}${route}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as { error?: string } };
}

/** Asserts a 400 user error whose message matches `pattern`. */
async function refused(route: string, body: unknown, pattern: RegExp): Promise<void> {
  const { status, json } = await post(route, body);
  assert.equal(status, 400, `${route} ${JSON.stringify(body).slice(0, 120)} -> ${status} ${json.error}`);
  assert.equal(json.category, 'user');
  assert.match(json.error!, pattern);
}

function isDatum(logprobs: number[], advantages: number[]): Datum {
  return {
    model_input: { chunks: [{ tokens: TEXT.slice(0, -1) }] },
    loss_fn_inputs: {
      target_tokens: { dtype: 'int64', shape: [4], data: TEXT.slice(1) },
      logprobs: { dtype: 'float32', shape: [4], data: logprobs },
      advantages: { dtype: 'float32', shape: [4], data: advantages },
    },
  };
}

function ceDatum(weights: number[]): Datum {
  return { model_input: { chunks: [{ tokens: TEXT.slice(0, -1) }] }, loss_fn_inputs: { target_tokens: { dtype: 'int64', shape: [4], data: TEXT.slice(1) }, weights: { dtype: 'float32', shape: [4], data: weights } } };
}

async function forwardLogprobs(): Promise<number[]> {
  return Array.from((await model.forwardBackward([ceDatum([1, 1, 1, 1])], 'cross_entropy', { forwardOnly: true })).loss_fn_outputs[0]!.logprobs!.data);
}

test('NaN or Inf in importance_sampling advantages is refused naming the datum and value; the adapter is untouched', async () => {
  const before = await forwardLogprobs();
  await assert.rejects(model.forwardBackward([isDatum([-1, -1, -1, -1], [1, Number.NaN, 1, 1])], 'importance_sampling'), /datum 0: loss_fn_inputs\.advantages\[1\] is NaN; every value must be a finite number/);
  await assert.rejects(model.forwardBackward([isDatum([-1, -1, -1, -1], [1, 1, Number.POSITIVE_INFINITY, 1])], 'importance_sampling'), /advantages\[2\] is Infinity/);
  await model.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.05 });
  assert.deepEqual(await forwardLogprobs(), before, 'no gradient was accumulated from the refused batches');
});

test('NaN in cross_entropy weights is refused', async () => {
  await assert.rejects(model.forwardBackward([ceDatum([1, 1, Number.NaN, 1])], 'cross_entropy'), /loss_fn_inputs\.weights\[2\] is NaN/);
});

test('ppo clip thresholds that would clip the ratio 1 are refused naming the key', async () => {
  const ppo = (config: Record<string, number>) => model.forwardBackward([isDatum([-1, -1, -1, -1], [1, 1, 1, 1])], 'ppo', { config, forwardOnly: true });
  await assert.rejects(ppo({ clip_low_threshold: -5 }), /loss_fn_config\.clip_low_threshold must be from 0 to 1 \(the ratio 1 stays inside the clip range\), got -5/);
  await assert.rejects(ppo({ clip_low_threshold: 1.5 }), /clip_low_threshold must be from 0 to 1/);
  await assert.rejects(ppo({ clip_high_threshold: 0.5 }), /loss_fn_config\.clip_high_threshold must be >= 1 .*got 0\.5/);
  await ppo({ clip_low_threshold: 0.8, clip_high_threshold: 1.28 });
});

test('Adam parameters outside their range or of the wrong type are typed 400s naming the field', async () => {
  const id = model.modelId;
  const adam = (extra: Record<string, unknown>) => ({ model_id: id, adam_params: { ...DEFAULT_ADAM, ...extra } });
  await refused('/optim_step', adam({ beta1: 2 }), /^adam_params\.beta1: must be >= 0 and < 1, got 2$/);
  await refused('/optim_step', adam({ beta2: 1 }), /adam_params\.beta2: must be >= 0 and < 1, got 1/);
  await refused('/optim_step', adam({ eps: 0 }), /adam_params\.eps: must be > 0/);
  await refused('/optim_step', adam({ weight_decay: -1e30 }), /adam_params\.weight_decay: must be >= 0, got -1e\+30/);
  await refused('/optim_step', adam({ learning_rate: -1 }), /adam_params\.learning_rate: must be >= 0/);
  await refused('/optim_step', adam({ beta1: 'x' }), /adam_params\.beta1: must be a finite number >= 0 and < 1, got "x"/);
  await refused('/optim_step', adam({ learning_rate: 0.5, weight_decay: 4 }), /adam_params\.weight_decay: .* keep lr \* weight_decay < 1/);
});

test('a gradient that overflows anyway is not applied, and the error says so', async () => {
  const before = await forwardLogprobs();
  // A behaviour logprob of -1e30 makes the ratio exp(lp - q) infinite: the gradient is not finite.
  await model.forwardBackward([isDatum([-1e30, -1, -1, -1], [1, 1, 1, 1])], 'importance_sampling');
  await assert.rejects(model.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.05 }), /optim_step not applied: the accumulated gradient norm is (NaN|Infinity).*keeps its weights/);
  assert.deepEqual(await forwardLogprobs(), before);
  const after = await forwardLogprobs();
  assert.ok(after.every(Number.isFinite));
});

test('a LoRA rank above the server limit is refused naming the limit and its flag', async () => {
  await refused('/create_model', { session_id: client.sessionId, base_model: 'tiny', model_seq_id: 900, lora_config: { rank: 100_000 } }, /lora_config\.rank: must be >= 1 and <= 4096 \(this server's --max-lora-rank\), got 100000/);
  await refused('/create_model', { session_id: client.sessionId, base_model: 'tiny', model_seq_id: 901, lora_config: { rank: 'big' } }, /lora_config\.rank: must be an integer/);
});

// By the service's own count of adapter memory: what the process's RSS does with it depends on the
// allocator, so bench/tinker-hostile.ts prints (and bounds) that instead.
test('creating and unloading adapters in a loop, the oversized ones of an attack included, gives every adapter\'s memory back', async () => {
  const cycle = async (rank: number) => {
    // Over the rank limit, create_model is refused at the edge; a server without one allocates
    // it (rank 50000 is 400 MB with gradients and Adam moments here) and never returns it all.
    const big = await client.createLoraModel('tiny', { rank }).catch((error: Error) => assert.match(error.message, /lora_config\.rank: must be >= 1 and <= 4096/));
    if (big === undefined) return;
    await big.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.01 });
    await client.submit('/unload_model', { model_id: big.modelId }).then((id) => client.result(id, 'json'));
  };
  const before = server.service.adapterMemory();
  for (let i = 0; i < 4; i++) {
    await cycle(2048); // 16 MB each with gradients and Adam moments
    assert.equal(server.service.adapterMemory(), before, `cycle ${i}: unload_model gave the adapter's memory back`);
  }
  for (let i = 0; i < 3; i++) await cycle(50_000);
  assert.equal(server.service.adapterMemory() < 1024 * 1024, true, 'only the small model of this suite is left');
});

test('num_samples and max_tokens above the server caps are refused at once', async () => {
  const base = { base_model: 'tiny', prompt: { chunks: [{ tokens: [1, 2] }] } };
  await refused('/asample', { ...base, num_samples: 100_000, sampling_params: { max_tokens: 4 } }, /num_samples: must be >= 1 and <= 256 \(this server's --max-num-samples\), got 100000/);
  await refused('/asample', { ...base, num_samples: 1, sampling_params: { max_tokens: 10_000_000 } }, /sampling_params\.max_tokens: must be >= 1 and <= 32768/);
  await refused('/asample', { ...base, sampling_params: { temperature: 'hot' } }, /sampling_params\.temperature: must be a finite number/);
  await refused('/asample', { ...base, sampling_params: { stop: [''] } }, /sampling_params\.stop: stop strings must not be empty/);
});

test('a forward_backward datum of 200k tokens is a 400 naming the length, not a stack overflow', async () => {
  const tokens = Array.from({ length: 200_000 }, (_, i) => i % 64);
  const datum: Datum = { model_input: { chunks: [{ tokens }] }, loss_fn_inputs: { target_tokens: { dtype: 'int64', shape: [tokens.length], data: tokens } } };
  const bytes = encodeForwardBackwardRequest({ model_id: model.modelId, seq_id: 1_000_000, data: [datum], loss_fn: 'cross_entropy', loss_fn_config: {}, forward_only: true });
  const res = await fetch(`${server.url}${API_PREFIX}/forward_backward`, { method: 'POST', headers: { 'Content-Type': PROTOBUF_CONTENT_TYPE }, body: bytes });
  const json = (await res.json()) as { error: string };
  assert.equal(res.status, 400, json.error);
  assert.match(json.error, /datum 0: model_input has 200000 tokens but the model's context is 512/);
});

// A request left queued would wait forever: the timeout turns that into a failure (no speed bound).
test('a seq_id that is not a positive integer is refused on arrival, not left queued', { timeout: 60_000 }, async () => {
  await refused('/optim_step', { model_id: model.modelId, seq_id: 'abc', adam_params: DEFAULT_ADAM }, /^seq_id: must be an integer >= 1/);
  await refused('/save_weights', { model_id: model.modelId, seq_id: -3 }, /seq_id: must be >= 1/);
});

test('a refused training op still uses up its seq_id, so the next op runs', async () => {
  const fresh = await client.createLoraModel('tiny', { rank: 2 });
  await refused('/optim_step', { model_id: fresh.modelId, seq_id: 1, adam_params: { beta1: 7 } }, /beta1/);
  const id = await client.submit('/optim_step', { model_id: fresh.modelId, seq_id: 2, adam_params: DEFAULT_ADAM });
  const result = (await client.result(id, 'json')) as { metrics: Record<string, number> };
  assert.equal(result.metrics['grad_norm:mean'], 0);
});

test('checkpoint names are checked for length and characters; no server path appears in any message', async () => {
  const save = (path: unknown) => ({ model_id: model.modelId, path });
  const check = async (path: unknown, pattern: RegExp) => {
    const { status, json } = await post('/save_weights', save(path));
    assert.equal(status, 400, json.error);
    assert.match(json.error!, pattern);
    assert.ok(!json.error!.includes(stateDir) && !json.error!.includes('/tmp/'), `no server path in: ${json.error}`);
  };
  await check('x'.repeat(300), /path: must be 1 to 128 characters long, got 300/);
  await check('', /path: must be 1 to 128 characters long, got 0/);
  await check('a/b', /"a\/b" may use only letters, digits, '\.', '_' and '-'/);
  await check('..', /may use only letters/);
  await check(42, /path: must be a checkpoint name \(a string\), got 42/);
});

test('a body over the limit is answered 413 (the client reads it), and the server keeps serving', async () => {
  const res = await fetch(`${server.url}${API_PREFIX}/asample`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(2 * MAX_BODY) });
  const json = (await res.json()) as { error: string };
  assert.equal(res.status, 413);
  assert.match(json.error, /request body exceeds 4194304 bytes \(--max-body-mb\)/);
  assert.equal((await fetch(`${server.url}/health`)).status, 200);
});

test('malformed bodies and unknown types are 400s, never internal errors', async () => {
  await refused('/create_model', '{"session_id": ', /the request body is not valid JSON/);
  await refused('/create_model', { session_id: client.sessionId, base_model: 'tiny', model_seq_id: 902, lora_config: 'rank 8' }, /lora_config: must be a JSON object/);
  await refused('/asample', { base_model: 'tiny', prompt: { chunks: [{ type: 'image', data: 'x' }] } }, /prompt\.chunks\[0\]: only \{type: "encoded_text"/);
  await refused('/retrieve_future', { request_id: 7 }, /request_id: must be a non-empty string/);
  const res = await fetch(`${server.url}${API_PREFIX}/forward_backward`, { method: 'POST', headers: { 'Content-Type': PROTOBUF_CONTENT_TYPE }, body: new Uint8Array([0x0a, 0xff, 0xff, 0xff]) });
  assert.equal(res.status, 400);
});

test('a malformed percent-encoding in a URL path is a 400 naming the part, on every route that takes an id', async () => {
  for (const [method, route] of [['GET', '/samplers/%ZZ'], ['GET', '/sessions/%E0%A4%A'], ['GET', '/training_runs/%ZZ'], ['GET', '/training_runs/%ZZ/checkpoints'], ['DELETE', '/training_runs/%ZZ/checkpoints/weights/x'], ['DELETE', '/training_runs/x/checkpoints/weights/%FF']] as const) {
    const res = await fetch(`${server.url}${API_PREFIX}${route}`, { method });
    const json = (await res.json()) as { error: string; category: string };
    assert.equal(res.status, 400, `${method} ${route} -> ${res.status} ${json.error}`);
    assert.equal(json.category, 'user');
    assert.match(json.error, /^the URL path part "[^"]+" is not valid percent-encoding/);
  }
});

test('a restarted server removes the temporary files a killed save left behind', async () => {
  const leftover = '.tinker%3A%2F%2Fx%2Fweights%2Fa.safetensors.tmp-999999999-1';
  writeFileSync(join(stateDir, leftover), '');
  const again = await startTinkerServer({ kernels: createReferenceKernels(), models: [{ name: 'tiny', dir: folder.dir }], port: 0, stateDir, log: () => {} });
  await again.close();
  assert.deepEqual(readdirSync(stateDir).filter((f) => f.includes('.tmp-')), []);
});

