/**
 * Loads a model folder straight onto the kernels: config.json, then each tensor read from its
 * file (single or sharded) into the parameter's kernel memory, so the only extra memory is one
 * conversion chunk. A frozen base can keep its big 2-D weights in bf16 (half the memory):
 *
 *   const { model, tokenizer } = loadModel(kernels, 'models/qwen3', { frozen: true });        // bf16 if stored bf16
 *   const { model } = loadModel(kernels, 'models/qwen3', { baseDtype: 'bf16', frozen: true }); // round f32/f16 to bf16
 *   const { model } = loadModel(kernels, 'runs/x/model');                                     // trainable float32
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import type { Kernels } from '../kernels/types.js';
import type { LlamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { storageFor } from '../model/weight-storage.js';
import { Tensor, type StorageDtype } from '../tensor.js';
import type { Tokenizer } from '../tokenizer/types.js';
import { CONFIG_FILE, checkTensorShapes, expectedTensorShapes, readFolderTokenizer, readJsonFile, TOKENIZER_FILE, untiedHeadError } from './checkpoint.js';
import { openCheckpointWeights, type CheckpointWeights } from './checkpoint-weights.js';
import { parseLlamaConfig } from './parse-llama-config.js';

export type BaseDtypeOption = StorageDtype | 'auto';

export interface LoadModelOptions {
  /**
   * Storage of the big 2-D weights (embeddings, linear weights, lm_head); norms and biases
   * are always float32. 'auto' (default): bf16 when the checkpoint stores them as BF16 and
   * the base is `frozen`, else float32. 'bf16' rounds F32/F16 weights to nearest even.
   */
  readonly baseDtype?: BaseDtypeOption;
  /**
   * The base will not train (LoRA adapters, serving, scoring): no gradient buffers, and bf16
   * storage is allowed. Default false: every parameter is a trainable float32 tensor.
   */
  readonly frozen?: boolean;
}

const BF16_NAMES = new Set(['auto', 'bf16', 'f32']);

/** Loads the model folder `dir` onto `kernels` (see the file comment). */
export function loadModel(kernels: Kernels, dir: string, options: LoadModelOptions = {}): { model: LlamaModel; tokenizer: Tokenizer } {
  const { baseDtype = 'auto', frozen = false } = options;
  if (!BF16_NAMES.has(baseDtype)) throw new TroupeError('config', `baseDtype must be 'auto', 'bf16' or 'f32', got ${JSON.stringify(baseDtype)}`);
  if (baseDtype === 'bf16' && !frozen) {
    throw new TroupeError('config', `${dir}: a bf16 base cannot train; load it with frozen: true (LoRA, serving, scoring) or baseDtype 'f32' for full fine-tuning`);
  }
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new TroupeError('checkpoint', `model folder ${dir} does not exist; create one with \`troupe model init --out ${dir}\``);
  }
  const configPath = join(dir, CONFIG_FILE);
  const config = parseLlamaConfig(readJsonFile(configPath), configPath);
  const tokenizer = readFolderTokenizer(dir, config);
  if (tokenizer.vocabSize > config.vocab_size) {
    throw new TroupeError('checkpoint', `${join(dir, TOKENIZER_FILE)} has ${tokenizer.vocabSize} tokens but ${configPath} says vocab_size ${config.vocab_size}`);
  }
  const weights = openCheckpointWeights(dir);
  try {
    const { tiedHead } = checkTensorShapes(config, weights.tensors, weights.source);
    const storage = chooseStorage(config, weights, baseDtype, frozen);
    const parameters = readParameters(kernels, config, weights, storage, frozen);
    if (tiedHead && !sameValues(weights, 'lm_head.weight', 'model.embed_tokens.weight')) {
      for (const t of parameters.values()) t.free(kernels);
      throw untiedHeadError(weights.source);
    }
    return { model: LlamaModel.fromParameters(kernels, config, parameters), tokenizer };
  } finally {
    weights.close();
  }
}

/** 'auto' is bf16 exactly when the base is frozen and every big weight is stored as BF16. */
function chooseStorage(config: LlamaConfig, weights: CheckpointWeights, baseDtype: BaseDtypeOption, frozen: boolean): StorageDtype {
  if (baseDtype !== 'auto') return baseDtype;
  if (!frozen) return 'f32';
  for (const [name, shape] of expectedTensorShapes(config)) {
    if (storageFor(shape, 'bf16') === 'bf16' && weights.tensors.get(name)!.dtype !== 'BF16') return 'f32';
  }
  return 'bf16';
}

/** Allocates every parameter in its storage and reads it in place; frees them all on failure. */
function readParameters(kernels: Kernels, config: LlamaConfig, weights: CheckpointWeights, dtype: StorageDtype, frozen: boolean): Map<string, Tensor> {
  const parameters = new Map<string, Tensor>();
  try {
    for (const [name, shape] of expectedTensorShapes(config)) {
      const bf16 = storageFor(shape, dtype) === 'bf16';
      const t = bf16 ? Tensor.bf16(kernels, shape) : Tensor.parameter(kernels, shape, !frozen);
      parameters.set(name, t);
      weights.read(name, bf16 ? t.bits : t.data);
    }
    return parameters;
  } catch (error) {
    for (const t of parameters.values()) t.free(kernels);
    throw error;
  }
}

/** Whether two same-shaped stored tensors hold equal values, compared chunk by chunk. */
function sameValues(weights: CheckpointWeights, a: string, b: string): boolean {
  const size = weights.tensors.get(a)!.shape.reduce((x, y) => x * y, 1);
  const chunk = 1 << 16;
  const left = new Float32Array(chunk);
  const right = new Float32Array(chunk);
  for (let at = 0; at < size; at += chunk) {
    const n = Math.min(chunk, size - at);
    weights.read(a, left.subarray(0, n), at);
    weights.read(b, right.subarray(0, n), at);
    for (let i = 0; i < n; i++) if (left[i] !== right[i]) return false;
  }
  return true;
}
