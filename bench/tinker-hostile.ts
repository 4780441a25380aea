// 64 hostile requests against `troupe serve --tinker`, with the health check polled throughout
// and the server's RSS read before and after. Prints each refusal and a summary; exit 1 when a
// request got anything but a 4xx, health took over 1 s, or RSS grew by more than 100 MB.
//
//   npx tsc -p tsconfig.json
//   node dist/bench/tinker-hostile.js [--model FOLDER] [--waves 4]
//
// The server runs as a child process (its RSS from /proc/<pid>/status) on the tiny Qwen3 fixture
// by default, with --max-body-mb 8 so the two over-long bodies are quick to send.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { encodeForwardBackwardRequest } from '../src/tinker/tinker-proto.js';
import { API_PREFIX, PROTOBUF_CONTENT_TYPE, type Datum } from '../src/tinker/types.js';
import { flag } from './process-stats.js';

const at = process.argv.indexOf('--model');
const model = at < 0 ? 'src/engine/io/fixtures/models/qwen3' : process.argv[at + 1]!;
const waves = flag('--waves', 4);
const MAX_BODY_MB = 8;

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}

const state = mkdtempSync(join(tmpdir(), 'troupe-hostile-'));
const child = spawn(process.execPath, ['dist/src/cli/main.js', 'serve', '--tinker', '--model', `tiny=${model}`, '--no-hf-cache', '--port', '0', '--state-dir', state, '--max-body-mb', String(MAX_BODY_MB)], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /troupe serve --tinker: (http:\/\/[^ ]+)/.exec(out);
    if (m) resolve(m[1]!);
  });
  child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening`)));
});

async function call(route: string, body: unknown, init: { raw?: boolean; method?: string } = {}): Promise<{ status: number; json: any }> {
  const headers = { 'Content-Type': body instanceof Uint8Array ? PROTOBUF_CONTENT_TYPE : 'application/json' };
  const payload = body instanceof Uint8Array || init.raw ? (body as string) : JSON.stringify(body);
  const res = await fetch(`${url}${API_PREFIX}${route}`, { method: init.method ?? 'POST', headers, body: payload });
  return { status: res.status, json: await res.json().catch(() => ({})) };
}

async function result(requestId: string): Promise<any> {
  for (;;) {
    const r = (await call('/retrieve_future', { request_id: requestId })).json;
    if (r.type !== 'try_again') return r;
  }
}

// Setup: a session and one training model to aim at.
const session = (await call('/create_session', {})).json.session_id as string;
const created = await result((await call('/create_model', { session_id: session, base_model: 'tiny', model_seq_id: 0, lora_config: { rank: 4 } })).json.request_id);
const modelId = created.model_id as string;
const TEXT = [3, 17, 42, 8, 25];
const t = (name: string, dtype: 'float32' | 'int64', data: number[]) => ({ [name]: { dtype, shape: [data.length], data } });
const datum = (inputs: Datum['loss_fn_inputs'], tokens = TEXT.slice(0, -1)): Datum => ({ model_input: { chunks: [{ tokens }] }, loss_fn_inputs: { ...t('target_tokens', 'int64', TEXT.slice(1)), ...inputs } });
const fb = (data: Datum[], lossFn = 'cross_entropy', config: Record<string, number> = {}) => encodeForwardBackwardRequest({ model_id: modelId, seq_id: 1_000_000, data, loss_fn: lossFn, loss_fn_config: config, forward_only: false });
const adam = (p: Record<string, unknown>) => ({ model_id: modelId, adam_params: { learning_rate: 1e-3, ...p } });
const sampleReq = (extra: Record<string, unknown>, params: Record<string, unknown> = { max_tokens: 4 }) => ({ base_model: 'tiny', prompt: { chunks: [{ tokens: [1, 2] }] }, sampling_params: params, ...extra });
const long = Array.from({ length: 200_000 }, (_, i) => i % 64);
const big = 'x'.repeat((MAX_BODY_MB + 1) * 1024 * 1024);

const hostile: Array<[string, string, unknown, { raw?: boolean }?]> = [
  ['NaN advantage', '/forward_backward', fb([datum({ ...t('logprobs', 'float32', [-1, -1, -1, -1]), ...t('advantages', 'float32', [1, NaN, 1, 1]) })], 'importance_sampling')],
  ['Inf advantage', '/forward_backward', fb([datum({ ...t('logprobs', 'float32', [-1, -1, -1, -1]), ...t('advantages', 'float32', [1, Infinity, 1, 1]) })], 'importance_sampling')],
  ['NaN logprob', '/forward_backward', fb([datum({ ...t('logprobs', 'float32', [NaN, -1, -1, -1]), ...t('advantages', 'float32', [1, 1, 1, 1]) })], 'ppo')],
  ['NaN weight', '/forward_backward', fb([datum(t('weights', 'float32', [1, NaN, 1, 1]))])],
  ['-Inf weight', '/forward_backward', fb([datum(t('weights', 'float32', [1, -Infinity, 1, 1]))])],
  ['NaN loss_fn_config', '/forward_backward', fb([datum({ ...t('logprobs', 'float32', [-1, -1, -1, -1]), ...t('advantages', 'float32', [1, 1, 1, 1]) })], 'ppo', { clip_low_threshold: NaN })],
  ['200k-token datum', '/forward_backward', fb([{ model_input: { chunks: [{ tokens: long }] }, loss_fn_inputs: t('target_tokens', 'int64', long) }])],
  ['200k-token datum (forward)', '/forward_backward', fb([{ model_input: { chunks: [{ tokens: long }] }, loss_fn_inputs: t('target_tokens', 'int64', long) }])],
  ['no datums', '/forward_backward', fb([])],
  ['unknown loss', '/forward_backward', fb([datum({})], 'dpo')],
  ['token outside vocab', '/forward_backward', fb([datum({}, [1, 2, 3, 999])])],
  ['garbage protobuf', '/forward_backward', new Uint8Array([0x0a, 0xff, 0xff, 0xff])],
  ['truncated protobuf', '/forward_backward', fb([datum({})]).slice(0, 9)],
  ['beta1 = 2', '/optim_step', adam({ beta1: 2 })],
  ['beta2 = 1', '/optim_step', adam({ beta2: 1 })],
  ['eps = 0', '/optim_step', adam({ eps: 0 })],
  ['weight_decay = -1e30', '/optim_step', adam({ weight_decay: -1e30 })],
  ['learning_rate = -1', '/optim_step', adam({ learning_rate: -1 })],
  ['learning_rate = 1e30', '/optim_step', adam({ learning_rate: 1e30 })],
  ['beta1 = "x"', '/optim_step', adam({ beta1: 'x' })],
  ['lr * weight_decay >= 1', '/optim_step', adam({ learning_rate: 0.5, weight_decay: 3 })],
  ['grad_clip_norm = -1', '/optim_step', adam({ grad_clip_norm: -1 })],
  ['adam_params a string', '/optim_step', { model_id: modelId, adam_params: 'fast' }],
  ['rank 100000', '/create_model', { session_id: session, base_model: 'tiny', model_seq_id: 50, lora_config: { rank: 100_000 } }],
  ['rank 0', '/create_model', { session_id: session, base_model: 'tiny', model_seq_id: 51, lora_config: { rank: 0 } }],
  ['rank "big"', '/create_model', { session_id: session, base_model: 'tiny', model_seq_id: 52, lora_config: { rank: 'big' } }],
  ['rank 1.5', '/create_model', { session_id: session, base_model: 'tiny', model_seq_id: 53, lora_config: { rank: 1.5 } }],
  ['lora_config a string', '/create_model', { session_id: session, base_model: 'tiny', model_seq_id: 54, lora_config: 'rank 8' }],
  ['nothing to train', '/create_model', { session_id: session, base_model: 'tiny', model_seq_id: 55, lora_config: { rank: 4, train_attn: false, train_mlp: false, train_unembed: false } }],
  ['unknown base model', '/create_model', { session_id: session, base_model: 'no-such', model_seq_id: 56 }],
  ['unknown session', '/create_model', { session_id: 'nope', base_model: 'tiny' }],
  ['num_samples 100000', '/asample', sampleReq({ num_samples: 100_000 })],
  ['num_samples 0', '/asample', sampleReq({ num_samples: 0 })],
  ['max_tokens 1e7', '/asample', sampleReq({}, { max_tokens: 10_000_000 })],
  ['prompt + max_tokens past context', '/asample', sampleReq({}, { max_tokens: 127 })],
  ['temperature "hot"', '/asample', sampleReq({}, { temperature: 'hot' })],
  ['temperature -1', '/asample', sampleReq({}, { temperature: -1 })],
  ['top_p 0', '/asample', sampleReq({}, { top_p: 0 })],
  ['top_k 0', '/asample', sampleReq({}, { top_k: 0 })],
  ['empty stop string', '/asample', sampleReq({}, { stop: [''] })],
  ['stop id outside vocab', '/asample', sampleReq({}, { stop: [100_000] })],
  ['prompt token outside vocab', '/asample', { base_model: 'tiny', prompt: { chunks: [{ tokens: [1, 9999] }] } }],
  ['image chunk', '/asample', { base_model: 'tiny', prompt: { chunks: [{ type: 'image', data: 'x' }] } }],
  ['empty prompt', '/asample', { base_model: 'tiny', prompt: { chunks: [] } }],
  ['topk_prompt_logprobs 1e6', '/asample', sampleReq({ topk_prompt_logprobs: 1_000_000 })],
  ['unknown sampling session', '/asample', sampleReq({ sampling_session_id: 'nope' })],
  ['seq_id "abc"', '/optim_step', { ...adam({}), seq_id: 'abc' }],
  ['seq_id -1', '/save_weights', { model_id: modelId, seq_id: -1 }],
  ['seq_id 1.5', '/load_weights', { model_id: modelId, seq_id: 1.5, path: 'tinker://x/weights/y' }],
  ['300-char name', '/save_weights', { model_id: modelId, path: 'x'.repeat(300) }],
  ['empty name', '/save_weights', { model_id: modelId, path: '' }],
  ['name with /', '/save_weights', { model_id: modelId, path: 'a/b' }],
  ['name ..', '/save_weights', { model_id: modelId, path: '..' }],
  ['name a number', '/save_weights_for_sampler', { model_id: modelId, path: 42 }],
  ['ttl_seconds -5', '/save_weights', { model_id: modelId, path: 'ok', ttl_seconds: -5 }],
  ['ttl_seconds "soon"', '/save_weights', { model_id: modelId, path: 'ok', ttl_seconds: 'soon' }],
  ['load a non-tinker path', '/load_weights', { model_id: modelId, path: '/etc/passwd' }],
  ['weights_info of nothing', '/weights_info', { tinker_path: 'tinker://nope/weights/x' }],
  ['request_id a number', '/retrieve_future', { request_id: 7 }],
  ['unknown request_id', '/retrieve_future', { request_id: 'req-999999' }],
  ['JSON cut short', '/create_model', '{"session_id": ', { raw: true }],
  ['JSON array body', '/create_model', '[1, 2]', { raw: true }],
  [`body of ${MAX_BODY_MB + 1} MiB (JSON)`, '/asample', big, { raw: true }],
  [`body of ${MAX_BODY_MB + 1} MiB (protobuf)`, '/forward_backward', new TextEncoder().encode(big)],
];

let healthMax = 0;
let healthPolls = 0;
let polling = true;
const poller = (async () => {
  while (polling) {
    const start = performance.now();
    await fetch(`${url}/health`);
    healthMax = Math.max(healthMax, performance.now() - start);
    healthPolls++;
    await new Promise((r) => setTimeout(r, 100));
  }
})();

const rssStart = rssMb(child.pid!);
const outcomes: Array<{ name: string; status: number; error: string }> = [];
const perWave = Math.ceil(hostile.length / waves);
const started = performance.now();
for (let w = 0; w < hostile.length; w += perWave) {
  await Promise.all(hostile.slice(w, w + perWave).map(async ([name, route, body, init]) => {
    const { status, json } = await call(route, body, init).catch((e: Error) => ({ status: 0, json: { error: `no answer: ${e.message}` } }));
    outcomes.push({ name, status, error: String(json.error ?? '') });
  }));
}
const elapsed = performance.now() - started;
await new Promise((r) => setTimeout(r, 1000));
const rssEnd = rssMb(child.pid!);
polling = false;
await poller;
child.kill('SIGTERM');
rmSync(state, { recursive: true, force: true });

for (const o of outcomes) console.log(`${String(o.status).padEnd(4)} ${o.name.padEnd(36)} ${o.error.slice(0, 110)}`);
const typed = outcomes.filter((o) => o.status >= 400 && o.status < 500 && o.error.length > 0).length;
console.log(`\n${outcomes.length} hostile requests in ${waves} waves (${(elapsed / 1000).toFixed(1)} s): ${typed} typed 4xx, ${outcomes.length - typed} other`);
console.log(`health: ${healthPolls} polls, slowest ${healthMax.toFixed(0)} ms`);
console.log(`server RSS: ${rssStart.toFixed(0)} MB before, ${rssEnd.toFixed(0)} MB 1 s after (${(rssEnd - rssStart).toFixed(0)} MB)`);
process.exit(typed === outcomes.length && outcomes.length === 64 && healthMax < 1000 && rssEnd - rssStart < 100 ? 0 : 1);
