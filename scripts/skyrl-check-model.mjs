// Writes the tiny random Qwen3 that scripts/skyrl-check.sh serves with SkyRL tx, in the
// Hugging Face layout Troupe writes: 2 layers, hidden 32, Troupe's 64-id character tokenizer
// (so Troupe's tasks tokenise as in the tests) and 128 embedding rows, padded past the
// tokenizer as real Qwen3 checkpoints are (151,936 rows for 151,669 ids). The random model
// samples the padded ids often, which is what broke the Tinker route before.
//
//   node scripts/skyrl-check-model.mjs OUT_DIR      (after npm run build)
import { saveModel } from '../dist/src/engine/io/model-checkpoint.js';
import { createReferenceKernels } from '../dist/src/engine/kernels/reference.js';
import { llamaConfig } from '../dist/src/engine/model/llama-config.js';
import { LlamaModel } from '../dist/src/engine/model/llama-model.js';
import { CharTokenizer } from '../dist/src/engine/tokenizer/char-tokenizer.js';

const out = process.argv[2];
if (!out) throw new Error('usage: node scripts/skyrl-check-model.mjs OUT_DIR');
const sizes = { hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 64, vocab: 128, context: 512 };
const config = { ...llamaConfig(sizes), architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3' };
const model = LlamaModel.create(createReferenceKernels(), config, { seed: 5 });
// The default init is nearly uniform over 128 ids; scaled up, sampling depends on the prompt
// and on the seed, so the seed and stop checks can tell outcomes apart.
for (const t of model.parameters.values()) if (t.shape.length === 2) for (let i = 0; i < t.data.length; i++) t.data[i] *= 8;
saveModel(out, model, CharTokenizer.standard());
model.dispose();
console.log(`${out}: Qwen3, ${CharTokenizer.standard().vocabSize} tokenizer ids, ${sizes.vocab} embedding rows`);
