// How a model of real width scales with threads: a random Qwen3-shaped bf16 model (hidden 1024,
// 16 heads of 128, 8 KV heads, intermediate 3072; fewer layers and a smaller vocabulary than
// Qwen3-0.6B by default) is built in memory for each thread count, and the figures of `troupe
// bench model` are measured on it, with less work by default so the whole ladder takes
// minutes: decode at batch 1 and 16 (32 prompt + 32 new tokens),
// prefill (256 tokens), and LoRA r16 training steps (2 x 256 tokens, mean of 2 after a
// warm-up). Every thread count must compute the same numbers: the digests of the greedy ids,
// logits and LoRA log-probs are compared.
//
//   npx tsc -p tsconfig.json
//   node dist/bench/thread-scaling-model.js [--threads 1,2,4,8] [--layers 8] [--vocab 32768]
//        [--backend auto|native|wasm] [--full | --quick]
//
// Prints one JSON line after every thread count, each the whole result so far (the last one is
// complete: `complete: true`); progress lines go to stderr.
//
// --layers 28 --vocab 151936 is Qwen3-0.6B's full shape (minutes per thread count). --full
// does `troupe bench model`'s work (64 new tokens, 4 x 256 training tokens, 3 steps); --quick
// shrinks it (8 new tokens, 2 x 64 training tokens, 1 step) for a smoke test.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { cpuModel } from '../src/cli/bench-command.js';
import { MODEL_BENCH_SIZES, measureModelFigures, type ModelBenchSizes, type ModelFigures } from '../src/cli/model-figures.js';
import { BACKEND_NAMES, type BackendName } from '../src/engine/kernels/backend-name.js';
import { createKernels, resolveBackend } from '../src/engine/kernels/get-kernels.js';
import { qwen3Shape, randomBf16Model } from '../src/engine/model/random-bf16-model.js';
import { defaultThreads } from '../src/util/thread-count.js';

const { values } = parseArgs({
  options: {
    threads: { type: 'string' },
    layers: { type: 'string', default: '8' },
    vocab: { type: 'string', default: '32768' },
    backend: { type: 'string', default: 'auto' },
    full: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  process.stderr.write(`thread-scaling-model: ${message}\n`);
  process.exit(2);
}

function wholeNumber(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be a whole number from ${min} to ${max}, got '${text}'`);
  return n;
}

/** 1, 2, 4, ... below the cores, and the cores (as `bench engine`'s ladder). */
function defaultLadder(cores: number): number[] {
  const ladder: number[] = [];
  for (let t = 1; t < cores; t *= 2) ladder.push(t);
  return [...ladder, cores];
}

const cores = defaultThreads();
const threads = values.threads === undefined ? defaultLadder(cores) : values.threads.split(',').map((t) => wholeNumber('threads', t.trim(), 1, 256));
const layers = wholeNumber('layers', values.layers!, 1, 64);
const vocab = wholeNumber('vocab', values.vocab!, 256, 262144);
if (!(BACKEND_NAMES as readonly string[]).includes(values.backend!)) fail(`--backend must be one of ${BACKEND_NAMES.join(', ')}, got '${values.backend}'`);
const backend = resolveBackend(values.backend as BackendName);
const QUICK: ModelBenchSizes = { prompt: 8, newTokens: 8, wideBatch: 16, prefill: 64, trainBatch: 2, trainContext: 64, trainSteps: 1 };
const SCALING: ModelBenchSizes = { ...MODEL_BENCH_SIZES, newTokens: 32, trainBatch: 2, trainSteps: 2 };
if (values.full && values.quick) fail('--full and --quick exclude each other; pick one');
const sizes = values.quick ? QUICK : values.full ? MODEL_BENCH_SIZES : SCALING;
const config = qwen3Shape({ layers, vocab });
const say = (line: string): void => void process.stderr.write(`thread-scaling-model: ${line}\n`);

interface Point extends ModelFigures {
  readonly threads: number;
  readonly build_s: number;
  readonly total_s: number;
}

const loadStart = os.loadavg().map((x) => Number(x.toFixed(2)));
const points: Point[] = [];
let parameters = 0;
let simd = '';
const same = (part: keyof ModelFigures['digests']): boolean => points.every((p) => p.digests[part] === points[0]!.digests[part]);
/** The result so far, one line: printed after every thread count, so a run cut short keeps what it measured. */
const report = (): string => `${JSON.stringify({
  model: { shape: 'qwen3', hidden: config.hidden_size, layers, heads: config.num_attention_heads, kv_heads: config.num_key_value_heads, intermediate: config.intermediate_size, vocab, parameters, dtype: 'bf16 (random), LoRA r16 on the seven projections' },
  sizes,
  backend,
  machine: { cpu: cpuModel(), cores: os.cpus().length, available: cores, node: process.version, simd },
  load_start: loadStart,
  load_end: os.loadavg().map((x) => Number(x.toFixed(2))),
  complete: points.length === threads.length,
  points,
  same_numbers: { decode: same('decode'), prefill: same('prefill'), lora: same('lora') },
})}\n`;

for (const t of threads) {
  const start = performance.now();
  const kernels = await createKernels({ backend, threads: t });
  try {
    const model = randomBf16Model(kernels, config, 1);
    parameters = model.parameterCount();
    simd = kernels.name;
    const build_s = Number(((performance.now() - start) / 1000).toFixed(2));
    say(`${t} thread(s), ${kernels.name}: ${(parameters / 1e6).toFixed(0)}M parameters built in ${build_s} s`);
    try {
      const figures = measureModelFigures(model, kernels, sizes, { say: (line) => say(`${t} thread(s): ${line}`) });
      points.push({ threads: t, build_s, ...figures, total_s: Number(((performance.now() - start) / 1000).toFixed(2)) });
    } finally {
      model.dispose();
    }
  } finally {
    await (kernels as { dispose?: () => Promise<void> }).dispose?.();
  }
  process.stdout.write(report());
}
