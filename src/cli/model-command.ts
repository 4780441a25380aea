/**
 * `troupe model ...`: create and inspect model folders (HF layout, see
 * src/engine/io/checkpoint.ts).
 *
 *   npx troupe model init --hidden 64 --layers 2 --heads 4 --kv-heads 2 --intermediate 128 \
 *     --vocab 64 --seed 1 --out models/tiny
 *   npx troupe model logprobs models/tiny --ids 1,20,21,22 --json
 *   npx troupe model logprobs models/tiny --text "S.#G" --bos
 *   npx troupe model logprobs Qwen/Qwen3-0.6B --ids 9707,11,1879   # a hub id (HF cache)
 *   npx troupe model download Qwen/Qwen3-0.6B          # into the HF cache; prints the folder
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { TroupeError } from '../util/errors.js';
import { backendOption } from './backend-option.js';
import { Tape } from '../engine/autograd/tape.js';
import { resolveModel } from '../engine/hub/resolve-model.js';
import { loadModel, loadModelAdapter, saveModel } from '../engine/io/model-checkpoint.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import { getKernels } from '../engine/kernels/get-kernels.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import type { Kernels } from '../engine/kernels/types.js';
import { llamaConfig, type LlamaConfig } from '../engine/model/llama-config.js';
import { LlamaModel } from '../engine/model/llama-model.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { IdsOnlyTokenizer } from '../engine/tokenizer/ids-only-tokenizer.js';
import { readTokenizer } from '../engine/tokenizer/load-tokenizer.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';

export interface ModelInitOptions {
  readonly hidden: number;
  readonly layers: number;
  readonly heads: number;
  /** Defaults to `heads` (no grouped-query attention). */
  readonly kvHeads?: number;
  readonly intermediate: number;
  readonly vocab: number;
  readonly seed: number;
  readonly out: string;
  /** max_position_embeddings; llamaConfig's default when absent. */
  readonly context?: number;
  readonly tied?: boolean;
  /** A tokenizer.json (Troupe's or a Hugging Face one) to use instead of the standard character tokenizer. */
  readonly tokenizer?: string;
  /** A text file whose characters form the alphabet of a character tokenizer. */
  readonly tokenizerFromText?: string;
  readonly overwrite?: boolean;
}

function chooseTokenizer(options: ModelInitOptions): Tokenizer {
  if (options.tokenizer !== undefined && options.tokenizerFromText !== undefined) {
    throw new TroupeError('input', 'give either --tokenizer or --tokenizer-from-text, not both');
  }
  if (options.tokenizer !== undefined) return readTokenizer(options.tokenizer);
  if (options.tokenizerFromText !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.tokenizerFromText, 'utf8');
    } catch (error) {
      throw new TroupeError('io', `cannot read ${options.tokenizerFromText}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return CharTokenizer.fromText(text);
  }
  return CharTokenizer.standard();
}

/**
 * Writes a randomly initialised model folder; returns its config and parameter count. The
 * command passes the default (WASM) kernels; the reference kernels are the default here so
 * tests need no worker threads. Initial values do not depend on the kernels.
 */
export function modelInit(options: ModelInitOptions, kernels: Kernels = createReferenceKernels()): { config: LlamaConfig; parameters: number } {
  const tokenizer = chooseTokenizer(options);
  if (options.vocab < tokenizer.vocabSize) {
    throw new TroupeError('input', `--vocab ${options.vocab} is smaller than the tokenizer's ${tokenizer.vocabSize} tokens; use --vocab ${tokenizer.vocabSize} or more`);
  }
  const config = llamaConfig({
    hidden: options.hidden,
    layers: options.layers,
    heads: options.heads,
    kvHeads: options.kvHeads,
    intermediate: options.intermediate,
    vocab: options.vocab,
    context: options.context,
    tied: options.tied,
  });
  const model = LlamaModel.create(kernels, config, { seed: options.seed });
  try {
    saveModel(options.out, model, tokenizer, { overwrite: options.overwrite });
    return { config: model.config, parameters: model.parameterCount() };
  } finally {
    model.dispose();
  }
}

export interface ModelLogprobsOptions {
  readonly ids?: readonly number[];
  readonly text?: string;
  /** Prepend the tokenizer's BOS id to `text`. */
  readonly bos?: boolean;
  /** A PEFT adapter folder to apply on top of the model. */
  readonly adapter?: string;
}

/** Logprob of each token given the ones before it (ids.length - 1 numbers), via the engine. */
export function modelLogprobs(dir: string, options: ModelLogprobsOptions, kernels: Kernels = createReferenceKernels()): { ids: number[]; logprobs: number[]; tokenizer: Tokenizer } {
  const { model, tokenizer } = loadModel(kernels, dir, { frozen: true }); // scoring only
  try {
    const ids = tokenIds(options, tokenizer, model.config);
    const adapter = options.adapter === undefined ? undefined : loadModelAdapter(model, options.adapter, 'cli').name;
    const tape = new Tape(kernels, { grad: false });
    try {
      const scored = model.tokenLogprobs(tape, [{ promptIds: ids.slice(0, 1), responseIds: ids.slice(1) }], { adapter });
      return { ids, logprobs: Array.from(scored.logprobs.data), tokenizer };
    } finally {
      tape.dispose();
    }
  } finally {
    model.dispose();
  }
}

function tokenIds(options: ModelLogprobsOptions, tokenizer: Tokenizer, config: LlamaConfig): number[] {
  if ((options.ids === undefined) === (options.text === undefined)) {
    throw new TroupeError('input', 'give exactly one of --ids 1,2,3 or --text "..."');
  }
  if (options.bos && options.text === undefined) {
    throw new TroupeError('input', '--bos prepends BOS to --text; with --ids, put the BOS id first in the list yourself');
  }
  let ids: number[];
  if (options.text !== undefined) {
    ids = tokenizer.encode(options.text);
    if (options.bos) {
      if (tokenizer.special.bos === undefined) throw new TroupeError('input', '--bos given but the tokenizer has no BOS token');
      ids.unshift(tokenizer.special.bos);
    }
  } else {
    ids = [...(options.ids as number[])];
  }
  if (ids.length < 2) throw new TroupeError('input', `need at least 2 tokens to score (got ${ids.length}); every token after the first gets a logprob`);
  if (ids.length > config.max_position_embeddings) {
    throw new TroupeError('input', `${ids.length} tokens exceed the model's context of ${config.max_position_embeddings} (max_position_embeddings)`);
  }
  const bad = ids.find((id) => !Number.isInteger(id) || id < 0 || id >= config.vocab_size);
  if (bad !== undefined) throw new TroupeError('input', `token id ${bad} is outside the model's vocabulary 0..${config.vocab_size - 1}`);
  return ids;
}

function positiveInt(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) {
      throw new TroupeError('input', `${flag} must be a positive integer, got ${JSON.stringify(value)}`);
    }
    return n;
  };
}

function nonNegativeInt(flag: string): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value.trim())) throw new TroupeError('input', `${flag} must be a non-negative integer, got ${JSON.stringify(value)}`);
    return Number(value);
  };
}

function idList(value: string): number[] {
  const parts = value.split(',').map((s) => s.trim());
  if (parts.some((p) => !/^\d+$/.test(p))) {
    throw new TroupeError('input', `--ids must be comma-separated non-negative integers like 1,2,3, got ${JSON.stringify(value)}`);
  }
  return parts.map(Number);
}

export function registerModelCommand(program: Command): void {
  const model = program.command('model').description('create and inspect model folders (Hugging Face layout)');

  model
    .command('init')
    .description('write a randomly initialised Llama-style model folder')
    .requiredOption('--hidden <n>', 'hidden size', positiveInt('--hidden'))
    .requiredOption('--layers <n>', 'decoder layers', positiveInt('--layers'))
    .requiredOption('--heads <n>', 'attention heads', positiveInt('--heads'))
    .option('--kv-heads <n>', 'key/value heads (grouped-query attention; default: --heads)', positiveInt('--kv-heads'))
    .requiredOption('--intermediate <n>', 'MLP intermediate size', positiveInt('--intermediate'))
    .requiredOption('--vocab <n>', 'vocabulary size (at least the tokenizer size)', positiveInt('--vocab'))
    .option('--seed <n>', 'initialisation seed', nonNegativeInt('--seed'), 0)
    .option('--context <n>', 'maximum positions (max_position_embeddings)', positiveInt('--context'))
    .option('--tied', 'tie the output head to the embeddings', false)
    .option('--tokenizer <file>', 'tokenizer.json to include, Troupe\'s or any Hugging Face one (BPE, byte-level, SentencePiece); the tokenizer_config.json beside it names the special tokens (default: the standard 64-token character tokenizer)')
    .option('--tokenizer-from-text <file>', 'build a character tokenizer from the characters of a text file')
    .option('--overwrite', 'replace an existing non-empty output folder', false)
    .requiredOption('--out <dir>', 'output folder')
    .addOption(backendOption())
    .action(async (opts: ModelInitOptions & { backend?: BackendName }) => {
      const { config, parameters } = modelInit(opts, await getKernels(opts.backend));
      process.stdout.write(`wrote ${opts.out}: ${config.num_hidden_layers} layers, hidden ${config.hidden_size}, vocab ${config.vocab_size}, ${parameters} parameters\n`);
    });

  model
    .command('download <id>')
    .description('fetch a hub model (Org/Name or Org/Name@revision) into the Hugging Face cache (HF_HUB_CACHE, HF_HOME) and print its folder; a cached model is not fetched again')
    .action(async (id: string) => {
      process.stdout.write(`${await resolveModel(id)}\n`);
    });

  model
    .command('logprobs <model>')
    .description('print the logprob of each token given the ones before it; <model> is a folder or a hub id (Org/Name[@revision], from the HF cache or downloaded)')
    .option('--ids <ids>', 'comma-separated token ids', idList)
    .option('--text <text>', 'text to tokenize with the model folder\'s tokenizer')
    .option('--bos', 'prepend the BOS token to --text', false)
    .option('--adapter <dir>', 'apply a PEFT LoRA adapter: a folder or a hub id of an adapter repo')
    .option('--json', 'print a JSON array (one number per token after the first)', false)
    .addOption(backendOption())
    .action(async (dir: string, opts: ModelLogprobsOptions & { json: boolean; backend?: BackendName }) => {
      const adapter = opts.adapter === undefined ? {} : { adapter: await resolveModel(opts.adapter) };
      const { ids, logprobs, tokenizer } = modelLogprobs(await resolveModel(dir), { ...opts, ...adapter }, await getKernels(opts.backend));
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(logprobs)}\n`);
        return;
      }
      // A folder without tokenizer.json scores ids but cannot show their text.
      const text = (id: number) => (tokenizer instanceof IdsOnlyTokenizer ? '' : JSON.stringify(tokenizer.decode([id])));
      const lines = logprobs.map((lp, i) => `${String(i + 1).padStart(5)}  ${String(ids[i + 1]).padStart(6)}  ${text(ids[i + 1] as number).padEnd(8)}  ${lp.toFixed(6)}`);
      const total = logprobs.reduce((a, b) => a + b, 0);
      process.stdout.write(`  pos      id  token     logprob\n${lines.join('\n')}\ntotal ${total.toFixed(6)} over ${logprobs.length} tokens\n`);
    });
}
