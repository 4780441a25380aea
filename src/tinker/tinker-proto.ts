/**
 * The protobuf messages of the Tinker API (package `tinker_public`, SDK 0.25.0), both ways:
 * the `forward_backward` request body, and the `forward_backward` / `asample` results that
 * `retrieve_future` returns when asked for `application/x-protobuf`. Field numbers are the
 * SDK schema's (tinker_public.proto); arrays travel as little-endian raw bytes
 * (tokens int32, floats float32, tensor int64 / float32, offsets int64 byte offsets).
 *
 *   const body = encodeForwardBackwardRequest(request);     // client
 *   const request = decodeForwardBackwardRequest(body);     // server
 */
import { TroupeError } from '../util/errors.js';
import { ProtoWriter, readFields, type ProtoField } from './protobuf-wire.js';
import type { Datum, ForwardBackwardOutput, ForwardBackwardRequest, SampleResponse, SampledSequence, TensorData, TensorDtype } from './types.js';

/** DType enum of the schema. */
const DTYPE = { float32: 1, int64: 2, int32: 3, bfloat16: 4 } as const;
/** Empty cells of the top-k matrices (the SDK's MASK_LOGPROB). */
const MASK_LOGPROB = -99999;

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** Copies (alignment) then reinterprets little-endian bytes as a typed array. */
function float32s(b: Uint8Array): Float32Array {
  if (b.length % 4 !== 0) throw protoInput(`float32 data of ${b.length} bytes is not a multiple of 4`);
  return new Float32Array(b.slice().buffer);
}

function int32s(b: Uint8Array): Int32Array {
  if (b.length % 4 !== 0) throw protoInput(`int32 data of ${b.length} bytes is not a multiple of 4`);
  return new Int32Array(b.slice().buffer);
}

function int64s(b: Uint8Array): number[] {
  if (b.length % 8 !== 0) throw protoInput(`int64 data of ${b.length} bytes is not a multiple of 8`);
  return Array.from(new BigInt64Array(b.slice().buffer), Number);
}

function protoInput(message: string): TroupeError {
  return new TroupeError('input', `protobuf body: ${message}`);
}

/** Entries of a proto map field (repeated {key = 1, value = 2}). */
function mapEntry(f: ProtoField): { key: string; value?: ProtoField } {
  let key = '';
  let value: ProtoField | undefined;
  for (const e of readFields(f.bytes())) {
    if (e.field === 1) key = e.string();
    else if (e.field === 2) value = e;
  }
  return { key, value };
}

function tensorBytes(t: TensorData): { dtype: number; bytes: Uint8Array } {
  if (t.dtype === 'int64') return { dtype: DTYPE.int64, bytes: bytesOf(BigInt64Array.from(Array.from(t.data, (v) => BigInt(Math.round(v))))) };
  return { dtype: DTYPE.float32, bytes: bytesOf(Float32Array.from(t.data)) };
}

function decodeDense(dtype: number, bytes: Uint8Array, name: string): { dtype: TensorDtype; data: Float32Array | number[] } {
  if (dtype === DTYPE.float32) return { dtype: 'float32', data: float32s(bytes) };
  if (dtype === DTYPE.int64) return { dtype: 'int64', data: int64s(bytes) };
  if (dtype === DTYPE.int32) return { dtype: 'int64', data: Array.from(int32s(bytes)) };
  if (dtype === DTYPE.bfloat16) {
    const u16 = new Uint16Array(bytes.slice().buffer);
    const u32 = Uint32Array.from(u16, (h) => h << 16);
    return { dtype: 'float32', data: new Float32Array(u32.buffer) };
  }
  throw protoInput(`tensor '${name}' has dtype enum ${dtype}; use float32 (1) or int64 (2)`);
}

// ---- ForwardBackwardRequest {1 model_id, 2 seq_id, 3 data, 4 loss_fn, 5 loss_fn_config, 6 forward_only}

export function encodeForwardBackwardRequest(r: ForwardBackwardRequest): Uint8Array {
  const w = new ProtoWriter();
  w.string(1, r.model_id);
  w.varint(2, r.seq_id);
  for (const datum of r.data) {
    w.message(3, (d) => {
      for (const chunk of datum.model_input.chunks) d.message(1, (c) => c.message(1, (t) => t.bytes(1, bytesOf(Int32Array.from(chunk.tokens)))));
      for (const [name, tensor] of Object.entries(datum.loss_fn_inputs)) {
        d.message(2, (e) => {
          e.string(1, name);
          e.message(2, (t) => {
            const { dtype, bytes } = tensorBytes(tensor);
            t.bytes(1, bytes);
            t.varint(3, dtype);
            t.packedVarints(4, tensor.shape);
          });
        });
      }
    });
  }
  w.string(4, r.loss_fn);
  for (const [k, v] of Object.entries(r.loss_fn_config)) {
    w.message(5, (e) => {
      e.string(1, k);
      e.double(2, v);
    });
  }
  if (r.forward_only) w.varint(6, true);
  return w.finish();
}

function decodeTensor(buf: Uint8Array, name: string): TensorData {
  let dense: Uint8Array | undefined;
  let dtype = 0;
  let shape: number[] = [];
  for (const f of readFields(buf)) {
    if (f.field === 1) dense = f.bytes();
    else if (f.field === 2) throw protoInput(`tensor '${name}' is sparse (CSR); Troupe's server takes dense tensors only`);
    else if (f.field === 3) dtype = f.int();
    else if (f.field === 4) shape = shape.concat(f.varints());
  }
  const decoded = decodeDense(dtype, dense ?? new Uint8Array(0), name);
  return { dtype: decoded.dtype, shape: shape.length ? shape : [decoded.data.length], data: decoded.data };
}

function decodeDatum(buf: Uint8Array, index: number): Datum {
  const tokens: number[] = [];
  const inputs: Record<string, TensorData> = {};
  for (const f of readFields(buf)) {
    if (f.field === 1) {
      for (const c of readFields(f.bytes())) {
        if (c.field !== 1) throw protoInput(`datum ${index} has an image or audio chunk; Troupe serves text-only models`);
        // A loop, not push(...ids): a datum of 200k tokens would overflow the call stack.
        for (const t of readFields(c.bytes())) if (t.field === 1) for (const id of int32s(t.bytes())) tokens.push(id);
      }
    } else if (f.field === 2) {
      const { key, value } = mapEntry(f);
      inputs[key] = decodeTensor(value?.bytes() ?? new Uint8Array(0), key);
    }
  }
  return { model_input: { chunks: [{ type: 'encoded_text', tokens }] }, loss_fn_inputs: inputs };
}

export function decodeForwardBackwardRequest(buf: Uint8Array): ForwardBackwardRequest {
  let model_id = '';
  let seq_id = 0;
  let loss_fn = '';
  let forward_only = false;
  const data: Datum[] = [];
  const loss_fn_config: Record<string, number> = {};
  for (const f of readFields(buf)) {
    if (f.field === 1) model_id = f.string();
    else if (f.field === 2) seq_id = f.int();
    else if (f.field === 3) data.push(decodeDatum(f.bytes(), data.length));
    else if (f.field === 4) loss_fn = f.string();
    else if (f.field === 5) {
      const { key, value } = mapEntry(f);
      loss_fn_config[key] = value ? value.double() : 0;
    } else if (f.field === 6) forward_only = f.bool();
  }
  return { model_id, seq_id, data, loss_fn, loss_fn_config, forward_only };
}

// ---- ForwardBackwardOutput {1 loss_fn_output_type, 2 loss_fn_outputs: ArrayRecord, 3 metrics}
// ArrayRecord {1 type_tag, 2 fields: map<string, BatchedTensor>, 3 num_datums}
// BatchedTensor {1 data, 2 offsets (int64 byte offsets, N+1), 3 dtype, 4 trailing_shape}

export function encodeForwardBackwardOutput(out: ForwardBackwardOutput): Uint8Array {
  const w = new ProtoWriter();
  w.string(1, out.loss_fn_output_type);
  const names = out.loss_fn_outputs.length ? Object.keys(out.loss_fn_outputs[0]!) : [];
  w.message(2, (rec) => {
    rec.string(1, out.loss_fn_output_type);
    for (const name of names) {
      const parts = out.loss_fn_outputs.map((d) => tensorBytes(d[name]!));
      const offsets = [0n];
      for (const p of parts) offsets.push(offsets[offsets.length - 1]! + BigInt(p.bytes.length));
      const data = new Uint8Array(Number(offsets[offsets.length - 1]));
      parts.forEach((p, i) => data.set(p.bytes, Number(offsets[i])));
      rec.message(2, (e) => {
        e.string(1, name);
        e.message(2, (bt) => {
          bt.bytes(1, data);
          bt.bytes(2, bytesOf(BigInt64Array.from(offsets)));
          bt.varint(3, parts[0]?.dtype ?? DTYPE.float32);
        });
      });
    }
    rec.varint(3, out.loss_fn_outputs.length);
  });
  for (const [k, v] of Object.entries(out.metrics)) {
    w.message(3, (e) => {
      e.string(1, k);
      e.double(2, v);
    });
  }
  return w.finish();
}

export function decodeForwardBackwardOutput(buf: Uint8Array): ForwardBackwardOutput {
  let type = 'ArrayRecord';
  const metrics: Record<string, number> = {};
  const outputs: Record<string, TensorData>[] = [];
  for (const f of readFields(buf)) {
    if (f.field === 1) type = f.string();
    else if (f.field === 3) {
      const { key, value } = mapEntry(f);
      metrics[key] = value ? value.double() : 0;
    } else if (f.field === 2) {
      const perField = new Map<string, TensorData[]>();
      let numDatums = 0;
      for (const r of readFields(f.bytes())) {
        if (r.field === 3) numDatums = r.int();
        if (r.field !== 2) continue;
        const { key, value } = mapEntry(r);
        let data: Uint8Array = new Uint8Array(0);
        let offsets: number[] = [];
        let dtype = 0;
        for (const b of readFields(value?.bytes() ?? new Uint8Array(0))) {
          if (b.field === 1) data = b.bytes();
          else if (b.field === 2) offsets = int64s(b.bytes());
          else if (b.field === 3) dtype = b.int();
        }
        const tensors: TensorData[] = [];
        for (let i = 0; i + 1 < offsets.length; i++) {
          const dense = decodeDense(dtype, data.subarray(offsets[i], offsets[i + 1]), key);
          tensors.push({ dtype: dense.dtype, shape: [dense.data.length], data: dense.data });
        }
        perField.set(key, tensors);
        numDatums = Math.max(numDatums, tensors.length);
      }
      for (let i = 0; i < numDatums; i++) outputs.push(Object.fromEntries([...perField].map(([k, ts]) => [k, ts[i]!])));
    }
  }
  return { loss_fn_output_type: type.split(':').pop()!, loss_fn_outputs: outputs, metrics };
}

// ---- SampleResponse {1 sequences, 2 prompt_logprobs (float32, NaN = none), 3 topk_prompt_logprobs, 4 prompt_cache_hit_tokens}
// SampledSequence {1 stop_reason (0 stop, 1 length), 2 tokens int32, 3 logprobs float32}
// TopkPromptLogprobs {1 token_ids int32 N*K, 2 logprobs float32 N*K, 3 k, 4 prompt_length}

export function encodeSampleResponse(r: SampleResponse): Uint8Array {
  const w = new ProtoWriter();
  for (const s of r.sequences) {
    w.message(1, (m) => {
      if (s.stop_reason === 'length') m.varint(1, 1);
      m.bytes(2, bytesOf(Int32Array.from(s.tokens)));
      if (s.logprobs) m.bytes(3, bytesOf(Float32Array.from(s.logprobs)));
    });
  }
  if (r.prompt_logprobs) w.bytes(2, bytesOf(Float32Array.from(r.prompt_logprobs, (v) => (v === null ? NaN : v))));
  if (r.topk_prompt_logprobs) {
    const rows = r.topk_prompt_logprobs;
    const k = Math.max(0, ...rows.map((row) => row?.length ?? 0));
    const ids = new Int32Array(rows.length * k);
    const lps = new Float32Array(rows.length * k).fill(MASK_LOGPROB);
    rows.forEach((row, i) => row?.forEach(([id, lp], j) => {
      ids[i * k + j] = id;
      lps[i * k + j] = lp;
    }));
    w.message(3, (m) => {
      m.bytes(1, bytesOf(ids));
      m.bytes(2, bytesOf(lps));
      m.varint(3, k);
      m.varint(4, rows.length);
    });
  }
  return w.finish();
}

export function decodeSampleResponse(buf: Uint8Array): SampleResponse {
  const sequences: SampledSequence[] = [];
  let prompt_logprobs: (number | null)[] | undefined;
  for (const f of readFields(buf)) {
    if (f.field === 1) {
      let stop = 0;
      let tokens: number[] = [];
      let logprobs: number[] | undefined;
      for (const s of readFields(f.bytes())) {
        if (s.field === 1) stop = s.int();
        else if (s.field === 2) tokens = Array.from(int32s(s.bytes()));
        else if (s.field === 3) logprobs = Array.from(float32s(s.bytes()));
      }
      sequences.push({ stop_reason: stop === 1 ? 'length' : 'stop', tokens, ...(logprobs ? { logprobs } : {}) });
    } else if (f.field === 2) prompt_logprobs = Array.from(float32s(f.bytes()), (v) => (Number.isNaN(v) ? null : v));
  }
  return { sequences, ...(prompt_logprobs ? { prompt_logprobs } : {}) };
}
