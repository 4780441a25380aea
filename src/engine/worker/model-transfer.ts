/**
 * A model, its adapters, tokenizer and prompt format as plain messages, so that another
 * JavaScript thread (a worker_thread) can hold its own copy and sample from it while this
 * thread trains:
 *
 *   const { message, transfer } = packModel(model);
 *   worker.postMessage({ model: message }, transfer);          // copied once, then moved
 *   // in the worker:
 *   const copy = unpackModel(kernels, message);                // frozen: no gradients
 *   // after each update, only what trains travels (the adapters under LoRA):
 *   const update = packTrainableWeights(model);
 *   worker.postMessage(update.message, update.transfer);
 *   applyWeights(copy, update.message);                         // in the worker
 *
 * Every array is copied out of kernel memory (`slice`): a view into the WebAssembly heap
 * would otherwise clone the whole heap. The copies are transferred, not cloned again.
 */
import { TroupeError } from '../../util/errors.js';
import type { Kernels } from '../kernels/types.js';
import type { LlamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import type { LoraAdapter, LoraConfig } from '../model/lora.js';
import { Tensor, type StorageDtype } from '../tensor.js';
import { tokenizerFromJson } from '../tokenizer/load-tokenizer.js';
import type { Tokenizer } from '../tokenizer/types.js';

export interface TensorTransfer {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: StorageDtype;
  /** Float32 values, or bf16 bit patterns. */
  readonly values: Float32Array | Uint16Array;
}

export interface AdapterTransfer {
  readonly name: string;
  readonly config: LoraConfig;
  readonly parameters: readonly TensorTransfer[];
}

export interface ModelTransfer {
  readonly config: LlamaConfig;
  readonly parameters: readonly TensorTransfer[];
  readonly adapters: readonly AdapterTransfer[];
}

/** The weights an update changes: the trainable base parameters and every adapter's. */
export interface WeightsTransfer {
  readonly parameters: readonly TensorTransfer[];
  readonly adapters: readonly { readonly name: string; readonly parameters: readonly TensorTransfer[] }[];
}

export interface Packed<T> {
  readonly message: T;
  /** The buffers to pass as postMessage's transfer list. */
  readonly transfer: ArrayBuffer[];
}

function packTensor(name: string, t: Tensor, transfer: ArrayBuffer[]): TensorTransfer {
  const values = t.dtype === 'bf16' ? t.bits.slice() : t.data.slice();
  transfer.push(values.buffer as ArrayBuffer);
  return { name, shape: t.shape, dtype: t.dtype, values };
}

function packTensors(parameters: ReadonlyMap<string, Tensor>, transfer: ArrayBuffer[], only?: (t: Tensor) => boolean): TensorTransfer[] {
  return [...parameters].filter(([, t]) => only === undefined || only(t)).map(([name, t]) => packTensor(name, t, transfer));
}

/** The whole model (every base parameter in its storage, every adapter unless `adapters: false`) as one message. */
export function packModel(model: LlamaModel, options: { adapters?: boolean } = {}): Packed<ModelTransfer> {
  const transfer: ArrayBuffer[] = [];
  const adapters = options.adapters === false ? [] : [...model.adapters.values()].map((a) => packAdapter(a, transfer));
  return { message: { config: model.config, parameters: packTensors(model.parameters, transfer), adapters }, transfer };
}

/** What training changes: base parameters that take gradients, and all adapters (a frozen base never travels again). */
export function packTrainableWeights(model: LlamaModel): Packed<WeightsTransfer> {
  const transfer: ArrayBuffer[] = [];
  const adapters = [...model.adapters.values()].map((a) => ({ name: a.name, parameters: packTensors(a.parameters, transfer) }));
  return { message: { parameters: packTensors(model.parameters, transfer, (t) => t.requiresGrad), adapters }, transfer };
}

/** One adapter (its config and weights), e.g. a sampler snapshot for another thread. */
export function packAdapter(adapter: LoraAdapter, transfer: ArrayBuffer[]): AdapterTransfer {
  return { name: adapter.name, config: adapter.config, parameters: packTensors(adapter.parameters, transfer) };
}

/** Adds a packed adapter to a model copy, frozen (no gradients). */
export function installAdapter(model: LlamaModel, a: AdapterTransfer): void {
  const adapter = model.addAdapter(a.name, a.config, 0);
  for (const m of a.parameters) copyInto(adapter.parameters, m, `adapter '${a.name}'`);
  for (const t of adapter.parameters.values()) dropGradient(model.kernels, t);
}

function tensorFrom(kernels: Kernels, m: TensorTransfer): Tensor {
  if (m.dtype === 'bf16') {
    const t = Tensor.bf16(kernels, m.shape);
    t.bits.set(m.values as Uint16Array);
    return t;
  }
  const t = Tensor.parameter(kernels, m.shape, false);
  t.data.set(m.values as Float32Array);
  return t;
}

/** A frozen copy (no gradients) of a packed model, in `kernels`' memory. */
export function unpackModel(kernels: Kernels, message: ModelTransfer): LlamaModel {
  const parameters = new Map(message.parameters.map((m) => [m.name, tensorFrom(kernels, m)] as const));
  const model = LlamaModel.fromParameters(kernels, message.config, parameters);
  for (const a of message.adapters) installAdapter(model, a);
  return model;
}

function dropGradient(kernels: Kernels, t: Tensor): void {
  t.requiresGrad = false;
  if (t.grad) kernels.free(t.grad);
  t.grad = null;
}

function copyInto(parameters: ReadonlyMap<string, Tensor>, m: TensorTransfer, where: string): void {
  const t = parameters.get(m.name);
  if (!t || t.dtype !== m.dtype || t.size !== m.values.length) {
    throw new TroupeError('invariant', `internal invariant broken: ${where} has no ${m.dtype} parameter '${m.name}' of ${m.values.length} values to update`);
  }
  if (m.dtype === 'bf16') t.bits.set(m.values as Uint16Array);
  else t.data.set(m.values as Float32Array);
}

/** Writes an update's values over the copy's own (same names, shapes and storage). */
export function applyWeights(model: LlamaModel, update: WeightsTransfer): void {
  for (const m of update.parameters) copyInto(model.parameters, m, 'the model');
  for (const a of update.adapters) {
    const adapter = model.adapters.get(a.name);
    if (!adapter) throw new TroupeError('invariant', `internal invariant broken: the copy has no adapter '${a.name}'`);
    for (const m of a.parameters) copyInto(adapter.parameters, m, `adapter '${a.name}'`);
  }
}

export interface TokenizerTransfer {
  readonly json: Record<string, unknown>;
  readonly config?: Record<string, unknown>;
}

export function packTokenizer(tokenizer: Tokenizer): TokenizerTransfer {
  const config = tokenizer.tokenizerConfig?.();
  return { json: tokenizer.toTokenizerJson(), ...(config === undefined ? {} : { config }) };
}

export function unpackTokenizer(message: TokenizerTransfer): Tokenizer {
  return tokenizerFromJson(message.json, 'tokenizer.json', message.config);
}
