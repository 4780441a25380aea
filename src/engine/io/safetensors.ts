/**
 * The safetensors file format (Hugging Face), read and written exactly:
 *
 *   bytes 0..8        header length N, unsigned 64-bit little-endian
 *   bytes 8..8+N      UTF-8 JSON object: name -> { dtype, shape, data_offsets: [begin, end] },
 *                     plus an optional "__metadata__": { string: string }; writers pad it with
 *                     spaces so the data starts 8-byte aligned
 *   bytes 8+N..       the data buffer; offsets are relative to its start, tensors are
 *                     row-major little-endian and tile the buffer with no gaps or overlaps
 *
 * Troupe writes F32 (or BF16 for tensors marked so), with names sorted; it reads F32, F16
 * and BF16. Big files are read in place by SafetensorsFile (safetensors-file.ts).
 *
 *   const bytes = encodeSafetensors(tensors, { format: 'pt' });
 *   const { tensors, metadata } = decodeSafetensors(bytes, 'model.safetensors');
 */
import { readFileSync } from 'node:fs';
import { cannotReadFile, TroupeError } from '../../util/errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { decodeHalfArray, f32ToBf16 } from './half-float.js';
import { formatShape, shapeSize, type NamedTensor, type TensorMap } from './types.js';

/** Element types Troupe can read, with their byte sizes. */
const READABLE_DTYPES = { F32: 4, F16: 2, BF16: 2 } as const;
export type ReadableDtype = keyof typeof READABLE_DTYPES;

/** The reference implementation refuses headers above 100 MB; so do we. */
const MAX_HEADER_BYTES = 100_000_000;
const METADATA_KEY = '__metadata__';
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export interface SafetensorsContents {
  readonly tensors: Map<string, NamedTensor>;
  /** The `__metadata__` strings (empty when the file has none). */
  readonly metadata: Record<string, string>;
}

export function corrupt(source: string, problem: string): TroupeError {
  return new TroupeError('checkpoint', `${source} is not a valid safetensors file: ${problem}`);
}

/** Serialises float32 tensors to safetensors bytes (as F32, or BF16 where a tensor asks). */
export function encodeSafetensors(tensors: TensorMap, metadata?: Record<string, string>): Uint8Array {
  const names = [...tensors.keys()].sort();
  const header: Record<string, unknown> = {};
  if (metadata !== undefined) {
    for (const [key, value] of Object.entries(metadata)) {
      if (typeof value !== 'string') {
        throw new TroupeError('input', `safetensors metadata "${key}" must be a string, got ${typeof value}; convert it with String() or JSON.stringify()`);
      }
    }
    header[METADATA_KEY] = metadata;
  }
  let offset = 0;
  for (const name of names) {
    const tensor = tensors.get(name) as NamedTensor;
    if (name === '' || name === METADATA_KEY) {
      throw new TroupeError('input', `tensor name "${name}" is reserved or empty; rename the tensor`);
    }
    const size = shapeSize(tensor.shape);
    if (!tensor.shape.every((d) => Number.isInteger(d) && d >= 0) || size !== tensor.data.length) {
      throw new TroupeError('input', `tensor ${name} has shape ${formatShape(tensor.shape)} (${size} values) but ${tensor.data.length} values; fix the shape or the data`);
    }
    const dtype = tensor.dtype ?? 'F32';
    header[name] = { dtype, shape: [...tensor.shape], data_offsets: [offset, offset + READABLE_DTYPES[dtype] * size] };
    offset += READABLE_DTYPES[dtype] * size;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const headerLength = Math.ceil(json.length / 8) * 8;
  const bytes = new Uint8Array(8 + headerLength + offset);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, BigInt(headerLength), true);
  bytes.set(json, 8);
  bytes.fill(0x20, 8 + json.length, 8 + headerLength); // space padding, as the reference writer does
  let position = 8 + headerLength;
  for (const name of names) {
    const { data, dtype } = tensors.get(name) as NamedTensor;
    if (dtype === 'BF16') {
      const bits = new Uint16Array(data.length);
      f32ToBf16(data, bits);
      for (let i = 0; i < bits.length; i++) view.setUint16(position + 2 * i, bits[i]!, true);
      position += bits.byteLength;
      continue;
    }
    if (LITTLE_ENDIAN_HOST) {
      bytes.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), position);
    } else {
      for (let i = 0; i < data.length; i++) view.setFloat32(position + 4 * i, data[i] as number, true);
    }
    position += data.byteLength;
  }
  return bytes;
}

/** One tensor of a safetensors header: where its bytes are, relative to the data start. */
export interface HeaderEntry {
  readonly name: string;
  readonly dtype: ReadableDtype;
  readonly shape: number[];
  readonly begin: number;
  readonly end: number;
}

/** A parsed header: entries in file order, metadata, and where the data buffer starts. */
export interface SafetensorsHeader {
  readonly entries: HeaderEntry[];
  readonly metadata: Record<string, string>;
  readonly dataStart: number;
}

/** Bytes per element of each readable dtype. */
export function dtypeBytes(dtype: ReadableDtype): number {
  return READABLE_DTYPES[dtype];
}

function parseEntry(source: string, name: string, value: unknown): HeaderEntry {
  if (typeof value !== 'object' || value === null) throw corrupt(source, `header entry "${name}" is not an object`);
  const { dtype, shape, data_offsets: offsets } = value as Record<string, unknown>;
  if (typeof dtype !== 'string') throw corrupt(source, `tensor "${name}" has no dtype`);
  if (!(dtype in READABLE_DTYPES)) {
    throw new TroupeError('checkpoint', `${source}: tensor "${name}" has dtype ${dtype}; Troupe reads ${Object.keys(READABLE_DTYPES).join(', ')}; convert the checkpoint to float32 or bfloat16 (e.g. model.to(torch.bfloat16) in PyTorch)`);
  }
  const isIndex = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
  if (!Array.isArray(shape) || !shape.every(isIndex)) throw corrupt(source, `tensor "${name}" has an invalid shape ${JSON.stringify(shape)}`);
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isIndex) || offsets[0] > offsets[1]) {
    throw corrupt(source, `tensor "${name}" has invalid data_offsets ${JSON.stringify(offsets)}`);
  }
  const [begin, end] = offsets as [number, number];
  const expected = shapeSize(shape) * READABLE_DTYPES[dtype as ReadableDtype];
  if (end - begin !== expected) {
    throw corrupt(source, `tensor "${name}" (${dtype} ${formatShape(shape)}) needs ${expected} bytes but data_offsets span ${end - begin}`);
  }
  return { name, dtype: dtype as ReadableDtype, shape, begin, end };
}

/** The header length stored in the first 8 bytes, checked against the file size. */
export function readHeaderLength(first8: Uint8Array, fileBytes: number, source: string): number {
  if (fileBytes < 8) throw corrupt(source, `file is ${fileBytes} bytes, shorter than the 8-byte header length`);
  const headerLength = new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true);
  if (headerLength > BigInt(Math.min(MAX_HEADER_BYTES, fileBytes - 8))) {
    throw corrupt(source, `header length ${headerLength} exceeds the ${fileBytes - 8} bytes after it (truncated file?)`);
  }
  return Number(headerLength);
}

/**
 * Parses the JSON header (the bytes after the length) and checks that the tensors tile the
 * `dataLength` bytes of the data buffer exactly: no gaps, no overlaps, nothing truncated.
 */
export function parseHeaderJson(json: Uint8Array, dataLength: number, source: string): SafetensorsHeader {
  let parsed: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(json);
    if (!text.startsWith('{')) throw new Error('header does not start with "{"');
    parsed = JSON.parse(text);
  } catch (error) {
    throw corrupt(source, `header is not UTF-8 JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw corrupt(source, 'header is not a JSON object');
  const metadata: Record<string, string> = {};
  const entries: HeaderEntry[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (name === METADATA_KEY) {
      if (typeof value !== 'object' || value === null) throw corrupt(source, '__metadata__ is not an object');
      for (const [key, text] of Object.entries(value)) {
        if (typeof text !== 'string') throw corrupt(source, `__metadata__ value "${key}" is not a string`);
        metadata[key] = text;
      }
    } else {
      entries.push(parseEntry(source, name, value));
    }
  }
  const byOffset = [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let expectedBegin = 0;
  for (const entry of byOffset) {
    if (entry.begin !== expectedBegin) {
      throw corrupt(source, `tensor "${entry.name}" starts at byte ${entry.begin} of the data but the previous tensor ends at ${expectedBegin} (gap or overlap)`);
    }
    expectedBegin = entry.end;
  }
  if (expectedBegin > dataLength) {
    throw corrupt(source, `tensors need ${expectedBegin} data bytes but the file has ${dataLength} (truncated file?)`);
  }
  if (expectedBegin < dataLength) {
    throw corrupt(source, `${dataLength - expectedBegin} trailing bytes after the last tensor`);
  }
  return { entries, metadata, dataStart: 8 + json.length };
}

/** Decodes safetensors bytes; `source` (a file name) appears in every error message. */
export function decodeSafetensors(bytes: Uint8Array, source = 'safetensors data'): SafetensorsContents {
  const headerLength = readHeaderLength(bytes, bytes.length, source);
  const dataStart = 8 + headerLength;
  const { entries, metadata } = parseHeaderJson(bytes.subarray(8, dataStart), bytes.length - dataStart, source);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tensors = new Map<string, NamedTensor>();
  for (const entry of entries) {
    const start = dataStart + entry.begin;
    const count = shapeSize(entry.shape);
    let data: Float32Array;
    if (entry.dtype !== 'F32') {
      data = decodeHalfArray(view, start, count, entry.dtype);
    } else if (LITTLE_ENDIAN_HOST) {
      // Copy (the file buffer may be unaligned for Float32Array and must not be aliased;
      // note Buffer#slice would alias, so copy into a fresh array explicitly).
      const copy = new Uint8Array(4 * count);
      copy.set(bytes.subarray(start, start + 4 * count));
      data = new Float32Array(copy.buffer);
    } else {
      data = new Float32Array(count);
      for (let i = 0; i < count; i++) data[i] = view.getFloat32(start + 4 * i, true);
    }
    tensors.set(entry.name, { shape: entry.shape, data });
  }
  return { tensors, metadata };
}

/** Reads a .safetensors file; a missing or corrupt file is a `checkpoint` error naming it. */
export function readSafetensors(path: string): SafetensorsContents {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw cannotReadFile(path, error);
  }
  return decodeSafetensors(bytes, path);
}

/** Writes a .safetensors file atomically (temp file + rename). */
export function writeSafetensors(path: string, tensors: TensorMap, metadata?: Record<string, string>): void {
  writeFileAtomic(path, encodeSafetensors(tensors, metadata));
}
