// CPU time of the sampler at the learning runs' shape (examples/sudoku-train.yaml): the 4-layer
// hidden-64 model, one generate call of 8 prompts of 90-95 tokens x K = 8 continuations x 4
// tokens, as one role's turn of a tree-sampling step (a step makes 24 such calls).
// Run: TROUPE_THREADS=1 npx tsx bench/sampling-bench.ts [--rounds 15] [--calls 6]
// Prints the median and range of CPU ms for `calls` generate calls, and a digest of every token
// id and logprob drawn (equal across builds that keep the float bits).
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { createKernels } from '../src/engine/kernels/get-kernels.js';
import { llamaConfig } from '../src/engine/model/llama-config.js';
import { LlamaModel } from '../src/engine/model/llama-model.js';
import { Sampler } from '../src/engine/sampling/generate.js';
import { CharTokenizer } from '../src/engine/tokenizer/char-tokenizer.js';
import { Rng } from '../src/util/rng.js';

const option = (name: string, fallback: number): number => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const rounds = option('--rounds', 15);
const calls = option('--calls', 6);
const kernels = await createKernels({ backend: 'auto', threads: 1 });
const model = LlamaModel.create(kernels, llamaConfig({ hidden: 64, layers: 4, heads: 4, intermediate: 192, vocab: 64, context: 128 }), { seed: 1 });
const sampler = new Sampler(model, CharTokenizer.standard());
const rng = new Rng(5);
const requests = Array.from({ length: 8 }, (_, i) => ({ promptIds: Array.from({ length: 90 + (i % 6) }, () => 1 + rng.int(63)), n: 8, seed: i, maxTokens: 4, temperature: 1, stopIds: [] }));
const digest = createHash('sha256');
const cpuMs: number[] = [];
for (let r = 0; r < rounds; r++) {
  const start = process.cpuUsage();
  for (let c = 0; c < calls; c++) {
    for (const row of sampler.generate(requests)) for (const g of row) digest.update(`${g.ids.join(',')}:${g.logprobs.join(',')};`);
  }
  const used = process.cpuUsage(start);
  cpuMs.push((used.user + used.system) / 1000);
}
const sorted = [...cpuMs].sort((a, b) => a - b);
console.log(`${kernels.name}, 1 thread: ${calls} generate calls of 8 x 8 x 4 tokens: median ${sorted[sorted.length >> 1]!.toFixed(0)} CPU ms (range ${sorted[0]!.toFixed(0)}-${sorted[sorted.length - 1]!.toFixed(0)}, ${rounds} rounds); ` +
  `digest ${digest.digest('hex').slice(0, 16)}; load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
