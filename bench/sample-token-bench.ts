// CPU time of sampleToken on one row of a Qwen3-sized vocabulary (151,936 logits): what the
// rollout pays per sampled token outside the kernels, at temperature 1 without top-k / top-p
// (the GRPO default) and with top-k and / or top-p, which select their candidates without
// sorting the whole row. Where the native addon is built, also the native backend's sampleRows
// (one thread, the same tokens and bits) at temperature 1.
// Run: npx tsc -p tsconfig.json && node dist/bench/sample-token-bench.js [--vocab 151936] [--runs 7] [--tokens 32]
import { loadavg } from 'node:os';
import { flag } from './process-stats.js';
import { Rng } from '../src/util/rng.js';
import { loadNativeBinding } from '../src/engine/kernels/native-binding.js';
import { createNativeKernels } from '../src/engine/kernels/native-kernels.js';
import { type RowSampler, sampleToken, sampleTokenRows, type SamplingParams } from '../src/engine/sampling/sample-token.js';

const vocab = flag('--vocab', 151936);
const runs = flag('--runs', 7);
const tokens = flag('--tokens', 32);
const rng = new Rng(1);
const rows = Array.from({ length: 4 }, () => Float32Array.from({ length: vocab }, () => (rng.nextU32() / 2 ** 32 - 0.5) * 16));

/** Median CPU milliseconds per token over `runs` runs of `tokens` draws, after one warm-up run. */
function msPerToken(params: SamplingParams, sampler?: RowSampler): { median: number; min: number; max: number } {
  const draws = new Rng(2);
  const state = [{ params, rng: draws }];
  const run = () => {
    const start = process.cpuUsage();
    for (let t = 0; t < tokens; t++) {
      if (sampler) sampleTokenRows(rows[t % rows.length]!, vocab, state, 1, sampler);
      else sampleToken(rows[t % rows.length]!, params, draws);
    }
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000 / tokens;
  };
  run();
  const times = Array.from({ length: runs }, run).sort((a, b) => a - b);
  return { median: times[Math.floor(runs / 2)]!, min: times[0]!, max: times[runs - 1]! };
}

const loadAverage = () => loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`sampleToken, vocab ${vocab}, ${tokens} tokens a run, median of ${runs} runs (CPU ms a token); load ${loadAverage()}`);
const settings: [string, SamplingParams][] = [
  ['temperature 1', { temperature: 1, topK: 0, topP: 1 }],
  ['temperature 1, top-k 50', { temperature: 1, topK: 50, topP: 1 }],
  ['temperature 1, top-p 0.9', { temperature: 1, topK: 0, topP: 0.9 }],
  ['temperature 0.7, top-k 50, top-p 0.9', { temperature: 0.7, topK: 50, topP: 0.9 }],
];
for (const [label, params] of settings) {
  const { median, min, max } = msPerToken(params);
  console.log(`${label.padEnd(38)} ${median.toFixed(2)} ms (${min.toFixed(2)}-${max.toFixed(2)})`);
}
if (loadNativeBinding().binding) {
  const { median, min, max } = msPerToken(settings[0]![1], createNativeKernels({ threads: 1 }) as RowSampler);
  console.log(`${'temperature 1, native sampleRows'.padEnd(38)} ${median.toFixed(2)} ms (${min.toFixed(2)}-${max.toFixed(2)})`);
}
console.log(`load at the end ${loadAverage()}`);
