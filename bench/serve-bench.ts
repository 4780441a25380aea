// troupe serve throughput: 64 requests one after another vs all 64 at once (batched).
// Run: npx tsx bench/serve-bench.ts [--hidden 64 --layers 4 --tokens 32]
//
// Server and client share one process (the server on 127.0.0.1, an ephemeral port); the
// model is random with the default training sizes (docs/config.md `model`), WASM kernels.
// Every request asks for `tokens` new tokens with no stop, ignoring EOS is not possible over the
// API, so throughput counts the completion tokens the server reports (usage).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { modelInit } from '../src/cli/model-command.js';
import { getKernels } from '../src/engine/kernels/get-kernels.js';
import { loadServedModels } from '../src/serve/load-served-models.js';
import { startServer } from '../src/serve/server.js';

const { values } = parseArgs({
  options: {
    hidden: { type: 'string', default: '64' },
    layers: { type: 'string', default: '4' },
    tokens: { type: 'string', default: '32' },
    requests: { type: 'string', default: '64' },
  },
});
const hidden = Number(values.hidden);
const requests = Number(values.requests);
const maxTokens = Number(values.tokens);

const dir = join(mkdtempSync(join(tmpdir(), 'troupe-serve-bench-')), 'model');
const kernels = await getKernels();
modelInit({ hidden, layers: Number(values.layers), heads: 4, intermediate: hidden * 3, vocab: 64, context: 320, seed: 1, out: dir }, kernels);
const server = await startServer({ models: loadServedModels(kernels, dir, { name: 'bench' }), port: 0 });

// Plan-Path-sized prompts (~120 characters), each different, so no prefill is shared.
const prompts = Array.from({ length: requests }, (_, i) => `PLAN ${i}\n${'S..#......\n'.repeat(10)}A:`);
async function ask(i: number): Promise<{ tokens: number; ms: number }> {
  const start = performance.now();
  const res = await fetch(`${server.url}/v1/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'bench', prompt: prompts[i], max_tokens: maxTokens, temperature: 1, seed: i }),
  });
  const body = (await res.json()) as { usage: { completion_tokens: number } };
  if (res.status !== 200) throw new Error(`request ${i}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return { tokens: body.usage.completion_tokens, ms: performance.now() - start };
}

await ask(0); // warm up (kernels, JIT)
const report = (label: string, results: { tokens: number; ms: number }[], wall: number) => {
  const tokens = results.reduce((a, r) => a + r.tokens, 0);
  const latencies = results.map((r) => r.ms).sort((a, b) => a - b);
  console.log(
    `${label.padEnd(12)} ${requests} requests, ${tokens} tokens in ${(wall / 1000).toFixed(2)} s: ` +
      `${(requests / (wall / 1000)).toFixed(1)} req/s, ${(tokens / (wall / 1000)).toFixed(0)} tok/s, ` +
      `latency p50 ${latencies[Math.floor(requests / 2)]!.toFixed(0)} ms, max ${latencies[requests - 1]!.toFixed(0)} ms`,
  );
  return tokens / (wall / 1000);
};

let start = performance.now();
const sequential = [];
for (let i = 0; i < requests; i++) sequential.push(await ask(i));
const seqRate = report('sequential', sequential, performance.now() - start);

const before = server.stats();
start = performance.now();
const concurrent = await Promise.all(prompts.map((_, i) => ask(i)));
const conRate = report('concurrent', concurrent, performance.now() - start);
const after = server.stats();
console.log(`concurrent: ${after.batches - before.batches} generate calls (largest ${after.largestBatch} requests); speed-up ${(conRate / seqRate).toFixed(2)}x`);
console.log(`model: hidden ${hidden}, ${values.layers} layers, vocab 64, ${maxTokens} new tokens per request, TROUPE_THREADS=${process.env.TROUPE_THREADS ?? '2 (default)'}`);

await server.close();
rmSync(join(dir, '..'), { recursive: true, force: true });
