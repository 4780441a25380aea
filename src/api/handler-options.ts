/**
 * The options of `createHandler` (and, with a port, of `serve`): which API to answer and over
 * which models. `tinker: true` picks the Tinker training API (`troupe serve --tinker`); without
 * it the handler is the OpenAI-compatible one (`troupe serve`).
 */
import type { HubEnv } from '../engine/hub/types.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import type { TinkerLimits } from '../serve/tinker/limits.js';
import type { RemoteSimulationOptions } from '../serve/tinker/simulated-remote.js';

/** The OpenAI-compatible routes: /v1/models, /v1/completions, /v1/chat/completions, /health, /tokenize, /detokenize, /tokenizer_info. */
export interface OpenAIHandlerOptions {
  readonly tinker?: false;
  /** A model folder, a run folder (its newest checkpoint; adapters as <run>:<role>) or a hub id `Org/Name[@revision]`. */
  readonly model: string;
  /** Served name of the base model (default the folder name, or the hub id). */
  readonly name?: string;
  /** Seed for requests that give none (default 0). */
  readonly seed?: number;
  /** How long a request waits for others to batch with, in ms (default 2). */
  readonly windowMs?: number;
  /** Largest request body in bytes (default 8 MiB; a bigger one is answered 413). */
  readonly maxBodyBytes?: number;
  /** Kernels (default auto: native where built, else WebAssembly). */
  readonly backend?: BackendName;
}

/** The Tinker API under /api/v1 (LoRA training and sampling; docs/tinker.md). */
export interface TinkerHandlerOptions {
  readonly tinker: true;
  /** Base models clients may load: `FOLDER`, `NAME=FOLDER` or a hub id (default none: only the HF cache's). */
  readonly models?: readonly string[];
  /** Also offer every model of the Hugging Face cache by hub id (default true). */
  readonly hfCache?: boolean;
  /** Where the hub cache is (default: from HF_HOME etc. in the environment). */
  readonly hubEnv?: HubEnv;
  /** Seed of sampling requests that give none (default 0). */
  readonly seed?: number;
  /** Where save_weights checkpoints are also written, so a restarted server loads them (default: memory only). */
  readonly stateDir?: string;
  /** LoRA alpha of every adapter (default 32; the API has no field for it). */
  readonly loraAlpha?: number;
  /** Per-request and memory bounds; each one not given takes its default. */
  readonly limits?: Partial<TinkerLimits>;
  /** Run asample requests that wait together as one batch (default false). */
  readonly batchSampling?: boolean;
  /** Sample on a thread of its own beside training requests (default false). */
  readonly samplerThread?: boolean;
  /** Simulate a remote GPU service (latency per request, time per token); default: as fast as this machine computes. */
  readonly simulate?: RemoteSimulationOptions;
  /** Kernels (default auto: native where built, else WebAssembly). */
  readonly backend?: BackendName;
}

export type HandlerOptions = OpenAIHandlerOptions | TinkerHandlerOptions;

export type { RemoteSimulationOptions, TinkerLimits };
