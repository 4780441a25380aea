/**
 * `troupe serve`: an OpenAI-compatible HTTP server over a model folder or a training run.
 *
 *   npx troupe serve models/tiny --port 8000
 *   npx troupe serve runs/plan-path-team            # newest checkpoint; adapters as <run>:<role>
 *   npx troupe serve Qwen/Qwen3-0.6B                # a hub id: HF cache, downloaded when missing
 *   curl http://127.0.0.1:8000/v1/models
 *
 * Any OpenAI client works against `http://127.0.0.1:8000/v1` (see docs/real-llms.md).
 *
 *   npx troupe serve --tinker --model models/tiny --port 8000   # the Tinker API (docs/tinker.md)
 *
 * Ctrl-C (SIGINT) or SIGTERM stops accepting connections, lets in-flight requests finish, and exits.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { startServe, type RunningServer } from '../api/start-serve.js';
import type { HubEnv } from '../engine/hub/types.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import { DEFAULT_MAX_BODY_BYTES } from '../serve/server.js';
import { DEFAULT_TINKER_LIMITS, LIMIT_FLAGS, type TinkerLimits } from '../serve/tinker/limits.js';
import { LORA_ALPHA } from '../serve/tinker/training-model.js';
import type { RemoteSimulationOptions } from '../serve/tinker/simulated-remote.js';
import { TroupeError } from '../util/errors.js';
import { backendOption } from './backend-option.js';

export interface TinkerServeCommandOptions {
  /** `FOLDER`, `NAME=FOLDER` or a hub id, each a base model clients can ask for. */
  readonly models: readonly string[];
  /** Also offer every model of the HF cache (HF_HOME) by hub id. Default true. */
  readonly hfCache?: boolean;
  /** Where the hub cache is (default: from HF_HOME etc. in the environment). */
  readonly hubEnv?: HubEnv;
  readonly host: string;
  readonly port: number;
  readonly seed: number;
  /** Where save_weights checkpoints are also written, so a restarted server loads them (default: memory only). */
  readonly stateDir?: string;
  /** LoRA alpha of every adapter (default 32; the API has no field for it). */
  readonly loraAlpha?: number;
  /** Per-request and memory bounds (each unset one takes its default, limits.ts). */
  readonly limits?: Partial<TinkerLimits>;
  /** Kernels (default auto). */
  readonly backend?: BackendName;
  /** A simulated remote GPU service (src/serve/tinker/simulated-remote.ts); default: answer as fast as this machine computes. */
  readonly simulate?: RemoteSimulationOptions;
  /** Run asample requests that wait together as one batch (TinkerServiceOptions.batchSampling). */
  readonly batchSampling?: boolean;
  /** Sample on a thread of its own (src/serve/tinker/sampler-thread.ts). */
  readonly samplerThread?: boolean;
  readonly print?: (text: string) => void;
}

/** `troupe serve --tinker`: the Tinker API over the given base models (loaded on first use). */
export function runTinkerServeCommand(options: TinkerServeCommandOptions): Promise<RunningServer> {
  return startServe({ ...options, tinker: true });
}

function integer(flag: string, min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
      throw new TroupeError('input', `${flag} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`}, got ${JSON.stringify(value)}`);
    }
    return Number(value);
  };
}

function nonNegativeNumber(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !(n >= 0) || !Number.isFinite(n)) throw new TroupeError('input', `${flag} must be a number >= 0, got ${JSON.stringify(value)}`);
    return n;
  };
}

function positiveNumber(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !(n > 0) || !Number.isFinite(n)) throw new TroupeError('input', `${flag} must be a positive number, got ${JSON.stringify(value)}`);
    return n;
  };
}

/** The --max-* flags of `serve --tinker`, as TinkerLimits (MB flags in bytes). */
type LimitFlags = { maxLoraRank?: number; maxAdapterMb?: number; maxNumSamples?: number; maxTokens?: number; maxDatumTokens?: number; maxBatchTokens?: number; maxBodyMb?: number };

function limitsFromFlags(opts: LimitFlags): Partial<TinkerLimits> {
  const mb = (v: number | undefined) => (v === undefined ? undefined : v * 1024 * 1024);
  const given: Partial<Record<keyof TinkerLimits, number | undefined>> = {
    maxLoraRank: opts.maxLoraRank,
    maxAdapterBytes: mb(opts.maxAdapterMb),
    maxNumSamples: opts.maxNumSamples,
    maxTokens: opts.maxTokens,
    maxDatumTokens: opts.maxDatumTokens,
    maxBatchTokens: opts.maxBatchTokens,
    maxBodyBytes: mb(opts.maxBodyMb),
  };
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
}

/** Adds the --max-* options; their defaults are shown in --help. */
function withLimitOptions(command: Command): Command {
  const d = DEFAULT_TINKER_LIMITS;
  const flag = (name: keyof TinkerLimits, what: string, shown: number) => command.option(`${LIMIT_FLAGS[name]} <n>`, `with --tinker: ${what} (default ${shown})`, integer(LIMIT_FLAGS[name], 1));
  flag('maxLoraRank', 'largest LoRA rank of create_model', d.maxLoraRank);
  flag('maxAdapterBytes', 'MB all LoRA adapters, sampler snapshots and in-memory checkpoints may hold', d.maxAdapterBytes / 1024 / 1024);
  flag('maxNumSamples', 'largest num_samples of one asample', d.maxNumSamples);
  flag('maxTokens', 'largest sampling_params.max_tokens', d.maxTokens);
  flag('maxDatumTokens', 'largest forward_backward datum, in tokens (the model context bounds it too)', d.maxDatumTokens);
  flag('maxBatchTokens', 'largest forward_backward request, in tokens of all its datums', d.maxBatchTokens);
  command.option(`${LIMIT_FLAGS.maxBodyBytes} <n>`, `largest request body in MB, answered 413 beyond (default ${DEFAULT_MAX_BODY_BYTES / 1024 / 1024}; ${d.maxBodyBytes / 1024 / 1024} with --tinker)`, integer(LIMIT_FLAGS.maxBodyBytes, 1));
  return command;
}

/** commander's key of a flag's value: --max-adapter-mb -> maxAdapterMb. */
function optionKey(flag: string): string {
  return flag.slice(2).replace(/-(\w)/g, (_match, c: string) => c.toUpperCase());
}

/** The --max-* flags that bound only the Tinker server (given without --tinker they would do nothing). */
function refuseTinkerOnlyLimits(opts: LimitFlags): void {
  const given = Object.values(LIMIT_FLAGS).filter((flag) => flag !== LIMIT_FLAGS.maxBodyBytes && (opts as Record<string, unknown>)[optionKey(flag)] !== undefined);
  if (given.length > 0) throw new TroupeError('input', `${given.join(', ')} bound${given.length === 1 ? 's' : ''} the Tinker server; add --tinker (the OpenAI server takes --max-body-mb only)`);
}

export function serveCommand(): Command {
  return withLimitOptions(new Command('serve'))
    .description('serve a model folder or a run over the OpenAI HTTP API (/v1/models, /v1/completions, /v1/chat/completions), or base models over the Tinker API (--tinker)')
    .argument('[dir]', 'model folder (config.json, model.safetensors, tokenizer.json[, adapters/<role>/]), run folder (checkpoints/), or hub id Org/Name[@revision]')
    .option('--tinker', 'serve the Tinker training API (LoRA training + sampling) instead of the OpenAI one; see docs/tinker.md')
    .option('--model <folder>', 'with --tinker: a base model clients may load, FOLDER, NAME=FOLDER or a hub id (repeatable); the HF cache is offered too', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--state-dir <dir>', 'with --tinker: also keep save_weights checkpoints in this folder, so a restarted server can load them (troupe train --resume)', join(tmpdir(), 'troupe-tinker-state'))
    .option('--lora-alpha <n>', `with --tinker: LoRA alpha of every adapter (scale alpha / rank); the API sends none, clients read it from get_info`, positiveNumber('--lora-alpha'), LORA_ALPHA)
    .option('--no-hf-cache', 'with --tinker: do not offer the models of the Hugging Face cache')
    .option('--simulate-latency-ms <n>', 'with --tinker: SIMULATE a remote service: every request waits N ms more (a network round trip; docs/distributed.md)', nonNegativeNumber('--simulate-latency-ms'))
    .option('--simulate-us-per-token <n>', 'with --tinker: SIMULATE a remote GPU: a result is ready N microseconds per token after its request (sampling in parallel, one training lane per model)', nonNegativeNumber('--simulate-us-per-token'))
    .option('--simulate-decode-ms <n>', 'with --tinker: SIMULATE a remote GPU\'s decoding: a sample takes N ms more per generated token (a request\'s samples decode side by side)', nonNegativeNumber('--simulate-decode-ms'))
    .option('--batch-sampling', 'with --tinker: run the asample requests that wait together as one batch (faster under concurrent clients; logprobs may differ in the last bits from run to run)')
    .option('--sampler-thread', 'with --tinker: sample on a thread of its own with a copy of the base and the sampler weights, beside training requests (half the kernel threads each)')
    .option('--host <host>', 'address to listen on (127.0.0.1 keeps it local)', '127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', integer('--port', 0, 65535), 8000)
    .option('--name <name>', 'served name of the base model (default: the folder name, or the hub id)')
    .option('--window-ms <n>', 'how long a request waits for others to batch with', integer('--window-ms', 0), 2)
    .option('--seed <n>', 'seed for requests that give none', integer('--seed', 0), 0)
    .addOption(backendOption())
    .action(async (dir: string | undefined, opts: { host: string; port: number; name?: string; windowMs: number; seed: number; tinker?: boolean; model: string[]; hfCache: boolean; stateDir: string; loraAlpha: number; backend?: BackendName; simulateLatencyMs?: number; simulateUsPerToken?: number; simulateDecodeMs?: number; batchSampling?: boolean; samplerThread?: boolean } & LimitFlags) => {
      let server: { close(): Promise<void> };
      const simulating = opts.simulateLatencyMs !== undefined || opts.simulateUsPerToken !== undefined || opts.simulateDecodeMs !== undefined;
      if (simulating && !opts.tinker) throw new TroupeError('input', '--simulate-latency-ms, --simulate-us-per-token and --simulate-decode-ms simulate a remote Tinker service; add --tinker');
      if (opts.samplerThread && !opts.tinker) throw new TroupeError('input', '--sampler-thread samples the Tinker API\'s asample requests on a thread of its own; add --tinker');
      if (opts.batchSampling && !opts.tinker) throw new TroupeError('input', '--batch-sampling batches the Tinker API\'s asample requests; add --tinker (the OpenAI server batches on its own, see --window-ms)');
      const simulate = simulating ? { latencyMs: opts.simulateLatencyMs ?? 0, usPerToken: opts.simulateUsPerToken ?? 0, decodeMsPerToken: opts.simulateDecodeMs ?? 0 } : undefined;
      if (opts.tinker) server = await runTinkerServeCommand({ models: [...opts.model, ...(dir === undefined ? [] : [dir])], hfCache: opts.hfCache, host: opts.host, port: opts.port, seed: opts.seed, stateDir: opts.stateDir, loraAlpha: opts.loraAlpha, backend: opts.backend, simulate, batchSampling: opts.batchSampling === true, samplerThread: opts.samplerThread === true, limits: limitsFromFlags(opts) });
      else if (dir === undefined) throw new TroupeError('input', 'serve needs a model or run folder (or --tinker --model FOLDER for the Tinker API)');
      else {
        refuseTinkerOnlyLimits(opts);
        const { host, port, name, windowMs, seed, backend } = opts;
        server = await startServe({ model: dir, host, port, name, windowMs, seed, backend, maxBodyBytes: opts.maxBodyMb === undefined ? undefined : opts.maxBodyMb * 1024 * 1024 });
      }
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          process.stderr.write(`troupe serve: ${signal}, finishing in-flight requests\n`);
          server.close().then(resolve, resolve);
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
      });
    });
}
