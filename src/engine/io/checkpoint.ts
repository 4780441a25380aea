/**
 * A model folder in the Hugging Face layout, so transformers or vLLM can load what Troupe
 * trains (and Troupe can load HF checkpoints in float32, float16 or bfloat16, single-file or
 * sharded with model.safetensors.index.json; see checkpoint-weights.ts):
 *
 *   config.json            LlamaConfig (architectures LlamaForCausalLM)
 *   model.safetensors      parameters under HF names, metadata {"format": "pt"} (transformers
 *                          refuses safetensors files without it)
 *   tokenizer.json         the tokenizer (see src/engine/tokenizer/)
 *   tokenizer_config.json  special tokens + PreTrainedTokenizerFast, for AutoTokenizer (a
 *                          tokenizer read from a real HF folder writes back the file it came
 *                          with, chat_template and all)
 *   generation_config.json when the model was trained from a folder that had one (stop tokens)
 *
 * Saving is atomic (a temp folder renamed into place) and validates first, so a folder on
 * disk is always complete and consistent. Loading checks every tensor the config implies.
 *
 *   saveCheckpoint('runs/x/model', { config, tensors, tokenizer });
 *   const { config, tensors, tokenizer } = loadCheckpoint('runs/x/model');
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import type { LlamaConfig } from '../model/llama-config.js';
import { llamaParameterShapes } from '../model/llama-params.js';
import { IdsOnlyTokenizer } from '../tokenizer/ids-only-tokenizer.js';
import { readTokenizer } from '../tokenizer/load-tokenizer.js';
import type { Tokenizer } from '../tokenizer/types.js';
import { writeFolderAtomic } from './atomic-write.js';
import { parseLlamaConfig } from './parse-llama-config.js';
import { openCheckpointWeights, WEIGHTS_FILE } from './checkpoint-weights.js';
import { encodeSafetensors } from './safetensors.js';
import { formatShape, shapeSize, type NamedTensor, type TensorMap } from './types.js';

export const CONFIG_FILE = 'config.json';
export { WEIGHTS_FILE };
export const TOKENIZER_FILE = 'tokenizer.json';
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
export const GENERATION_CONFIG_FILE = 'generation_config.json';

export interface Checkpoint {
  readonly config: LlamaConfig;
  readonly tensors: TensorMap;
  readonly tokenizer: Tokenizer;
  /** generation_config.json of the model this one was trained from, written back verbatim (its stop tokens). */
  readonly generationConfig?: unknown;
}

/** Every parameter a config implies, by HF name, with its shape ([out, in] for linears). */
export function expectedTensorShapes(config: LlamaConfig): Map<string, number[]> {
  return llamaParameterShapes(config); // the engine's list is the one source of parameter names
}

/**
 * Checks names and shapes against the config without reading any data: every parameter is
 * there with its shape, and nothing else but ignorable extras (rotary inv_freq buffers, and
 * an lm_head beside tied embeddings, which the caller must compare: `tiedHead`). Throws a
 * `checkpoint` error naming `source` and the first offending tensor.
 */
export function checkTensorShapes(config: LlamaConfig, tensors: ReadonlyMap<string, { readonly shape: readonly number[] }>, source: string): { tiedHead: boolean } {
  const expected = expectedTensorShapes(config);
  for (const [name, shape] of expected) {
    const tensor = tensors.get(name);
    if (tensor === undefined) {
      throw new TroupeError('checkpoint', `${source}: tensor ${name} is missing (expected shape ${formatShape(shape)} from the config)`);
    }
    if (tensor.shape.length !== shape.length || tensor.shape.some((d, i) => d !== shape[i])) {
      throw new TroupeError('checkpoint', `${source}: tensor ${name} has shape ${formatShape(tensor.shape)} but the config implies ${formatShape(shape)}`);
    }
  }
  let tiedHead = false;
  for (const [name, tensor] of tensors) {
    if (expected.has(name) || name.endsWith('.rotary_emb.inv_freq')) continue;
    const embed = expected.get('model.embed_tokens.weight')!;
    if (name === 'lm_head.weight' && config.tie_word_embeddings && formatShape(tensor.shape) === formatShape(embed)) {
      tiedHead = true;
      continue;
    }
    throw new TroupeError('checkpoint', `${source}: unexpected tensor ${name} ${formatShape(tensor.shape)}; it is not part of a ${config.model_type} model with this config (${config.architectures.join(', ')})`);
  }
  return { tiedHead };
}

/** The error for an lm_head that differs from the embeddings it is tied to. */
export function untiedHeadError(source: string): TroupeError {
  return new TroupeError('checkpoint', `${source}: lm_head.weight differs from model.embed_tokens.weight but config.json says tie_word_embeddings: true; set it to false or drop lm_head.weight`);
}

/**
 * Checks that `tensors` holds exactly the parameters of `config` with the right shapes and
 * returns them without ignorable extras (see checkTensorShapes).
 */
export function checkTensors(config: LlamaConfig, tensors: TensorMap, source: string): Map<string, NamedTensor> {
  const { tiedHead } = checkTensorShapes(config, tensors, source);
  if (tiedHead) {
    const head = tensors.get('lm_head.weight')!.data;
    const embed = tensors.get('model.embed_tokens.weight')!.data;
    if (!head.every((v, i) => v === embed[i])) throw untiedHeadError(source);
  }
  return new Map([...expectedTensorShapes(config).keys()].map((name) => [name, tensors.get(name)!]));
}

function tokenizerConfig(tokenizer: Tokenizer): Record<string, unknown> {
  const original = tokenizer.tokenizerConfig?.();
  if (original !== undefined) return original;
  const text = (id: number | undefined): string | null => (id === undefined ? null : tokenizer.decode([id]));
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    bos_token: text(tokenizer.special.bos),
    eos_token: text(tokenizer.special.eos),
    pad_token: text(tokenizer.special.pad),
    unk_token: text(tokenizer.special.unk),
    add_bos_token: false,
    add_eos_token: false,
    clean_up_tokenization_spaces: false,
    model_max_length: 1_000_000,
  };
}

/** Writes a model folder atomically; refuses to replace a non-empty folder unless `overwrite`. */
export function saveCheckpoint(dir: string, checkpoint: Checkpoint, options: { overwrite?: boolean } = {}): void {
  const { tokenizer } = checkpoint;
  if (tokenizer.vocabSize > checkpoint.config.vocab_size) {
    throw new TroupeError('input', `tokenizer has ${tokenizer.vocabSize} tokens but the model's vocab_size is ${checkpoint.config.vocab_size}; use a vocab of at least ${tokenizer.vocabSize}`);
  }
  const tensors = checkTensors(checkpoint.config, checkpoint.tensors, dir);
  const config: LlamaConfig = {
    ...checkpoint.config,
    ...(tokenizer.special.bos !== undefined ? { bos_token_id: tokenizer.special.bos } : {}),
    ...(tokenizer.special.eos !== undefined ? { eos_token_id: tokenizer.special.eos } : {}),
  };
  writeFolderAtomic(dir, [
    { name: CONFIG_FILE, contents: () => `${JSON.stringify(config, null, 2)}\n` },
    { name: WEIGHTS_FILE, contents: () => encodeSafetensors(tensors, { format: 'pt' }) },
    { name: TOKENIZER_FILE, contents: () => `${JSON.stringify(tokenizer.toTokenizerJson(), null, 2)}\n` },
    { name: TOKENIZER_CONFIG_FILE, contents: () => `${JSON.stringify(tokenizerConfig(tokenizer), null, 2)}\n` },
    ...(checkpoint.generationConfig === undefined ? [] : [{ name: GENERATION_CONFIG_FILE, contents: () => `${JSON.stringify(checkpoint.generationConfig, null, 2)}\n` }]),
  ], options);
}

/** Reads a JSON file of a checkpoint folder, with `checkpoint` errors naming the file. */
export function readJsonFile(path: string): unknown {
  if (!existsSync(path)) throw new TroupeError('checkpoint', `${path} is missing`);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new TroupeError('checkpoint', `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
}

/** The folder's tokenizer.json, or without one a tokenizer of bare token ids (IdsOnlyTokenizer). */
export function readFolderTokenizer(dir: string, config: LlamaConfig): Tokenizer {
  const tokenizerPath = join(dir, TOKENIZER_FILE);
  // Without tokenizer.json the folder still scores and samples token ids (see IdsOnlyTokenizer).
  return existsSync(tokenizerPath)
    ? readTokenizer(tokenizerPath)
    : new IdsOnlyTokenizer({ vocabSize: config.vocab_size, special: { bos: config.bos_token_id, eos: config.eos_token_id }, source: dir });
}

/** Every tensor of the folder's weights (single file or shards) as float32. */
function readAllWeights(dir: string): { source: string; tensors: Map<string, NamedTensor> } {
  const weights = openCheckpointWeights(dir);
  try {
    const tensors = new Map<string, NamedTensor>();
    for (const [name, t] of weights.tensors) {
      const data = new Float32Array(shapeSize(t.shape));
      weights.read(name, data);
      tensors.set(name, { shape: t.shape, data });
    }
    return { source: weights.source, tensors };
  } finally {
    weights.close();
  }
}

/**
 * Loads and validates a model folder written by `saveCheckpoint` (or by transformers), every
 * tensor as float32 in JavaScript memory. To load a model onto kernels, streamed and
 * optionally bf16, use loadModel (model-checkpoint.ts).
 */
export function loadCheckpoint(dir: string): Checkpoint {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new TroupeError('checkpoint', `model folder ${dir} does not exist; create one with \`troupe model init --out ${dir}\``);
  }
  const configPath = join(dir, CONFIG_FILE);
  const config = parseLlamaConfig(readJsonFile(configPath), configPath);
  const { source, tensors: all } = readAllWeights(dir);
  const tensors = checkTensors(config, all, source);
  const tokenizer = readFolderTokenizer(dir, config);
  if (tokenizer.vocabSize > config.vocab_size) {
    throw new TroupeError('checkpoint', `${join(dir, TOKENIZER_FILE)} has ${tokenizer.vocabSize} tokens but ${configPath} says vocab_size ${config.vocab_size}`);
  }
  return { config, tensors, tokenizer };
}
