/** A tiny random model folder (with optional LoRA adapters) for the serve and openai-policy tests. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveModel, saveModelAdapter } from '../engine/io/model-checkpoint.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { llamaConfig } from '../engine/model/llama-config.js';
import { LlamaModel } from '../engine/model/llama-model.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { Rng } from '../util/rng.js';

export interface TinyModelDir {
  readonly dir: string;
  remove(): void;
}

/**
 * Writes a 1-layer model with the standard 64-char tokenizer; adapters get non-zero weights.
 * `vocab` > 64 pads the embedding table past the tokenizer, as real checkpoints do (Qwen3-0.6B:
 * 151,936 rows, 151,669 ids): the random model samples those ids often.
 */
export function makeTinyModelDir(options: { adapters?: readonly string[]; chatTemplate?: string; context?: number; seed?: number; vocab?: number; tied?: boolean } = {}): TinyModelDir {
  const root = mkdtempSync(join(tmpdir(), 'troupe-serve-'));
  const dir = join(root, 'tiny');
  const kernels = createReferenceKernels();
  const config = llamaConfig({ hidden: 32, layers: 1, heads: 4, kvHeads: 2, intermediate: 64, vocab: options.vocab ?? 64, context: options.context ?? 512, tied: options.tied });
  const model = LlamaModel.create(kernels, config, { seed: options.seed ?? 5 });
  // Scale up the random init so the tiny model has peaked, prompt-dependent distributions.
  for (const t of model.parameters.values()) if (t.shape.length === 2) for (let i = 0; i < t.data.length; i++) t.data[i]! *= 8;
  saveModel(dir, model, CharTokenizer.standard());
  const rng = new Rng(9);
  for (const role of options.adapters ?? []) {
    const adapter = model.addAdapter(role, { r: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'o_proj'] }, 1);
    for (const t of adapter.parameters.values()) for (let i = 0; i < t.data.length; i++) t.data[i] = (rng.next() - 0.5) * 0.6;
    saveModelAdapter(join(dir, 'adapters', role), model, role, { baseModelNameOrPath: '../..' });
  }
  if (options.chatTemplate !== undefined) {
    const path = join(dir, 'tokenizer_config.json');
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), chat_template: options.chatTemplate }));
  }
  model.dispose();
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}
