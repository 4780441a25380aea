/**
 * A safetensors file read in place: `open` reads and checks only the header; `read` copies
 * one tensor straight into its destination with positional reads (no whole-file buffer, so a
 * multi-gigabyte shard costs no more than its largest conversion chunk on top of the model).
 * Destinations are float32 (any stored dtype converts exactly) or bf16 bits (F32 and F16
 * round to nearest even; BF16 copies).
 *
 *   const file = SafetensorsFile.open('model-00001-of-00002.safetensors');
 *   file.read('model.embed_tokens.weight', tensor.bits);
 *   file.close();
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { cannotReadFile, TroupeError } from '../../util/errors.js';
import { f16BitsToNumber, f32ToBf16, numberToBf16Bits } from './half-float.js';
import { corrupt, dtypeBytes, parseHeaderJson, readHeaderLength, type HeaderEntry } from './safetensors.js';
import { formatShape, shapeSize } from './types.js';

/** Elements converted per positional read when the stored dtype differs from the destination. */
const CHUNK_ELEMENTS = 1 << 18;
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export class SafetensorsFile {
  readonly path: string;
  readonly entries: ReadonlyMap<string, HeaderEntry>;
  readonly metadata: Record<string, string>;
  private fd: number | null;
  private readonly dataStart: number;
  private scratch: Uint8Array | null = null;

  private constructor(path: string, fd: number, entries: HeaderEntry[], metadata: Record<string, string>, dataStart: number) {
    this.path = path;
    this.fd = fd;
    this.entries = new Map(entries.map((e) => [e.name, e]));
    this.metadata = metadata;
    this.dataStart = dataStart;
  }

  /** Opens `path` and validates its header against the file size; errors name the file. */
  static open(path: string): SafetensorsFile {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      throw cannotReadFile(path, error);
    }
    try {
      const fileBytes = fstatSync(fd).size;
      const first8 = new Uint8Array(8);
      readFully(fd, first8, 0, path);
      const headerLength = readHeaderLength(first8, fileBytes, path);
      const json = new Uint8Array(headerLength);
      readFully(fd, json, 8, path);
      const { entries, metadata, dataStart } = parseHeaderJson(json, fileBytes - 8 - headerLength, path);
      return new SafetensorsFile(path, fd, entries, metadata, dataStart);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** The header entry of `name`, or a checkpoint error naming the file and tensor. */
  entry(name: string): HeaderEntry {
    const entry = this.entries.get(name);
    if (entry === undefined) throw new TroupeError('checkpoint', `${this.path}: tensor ${name} is not in this file`);
    return entry;
  }

  /**
   * Reads elements [start, start + dest.length) of tensor `name` (row-major) into `dest`:
   * a Float32Array gets float32 values, a Uint16Array bf16 bits.
   */
  read(name: string, dest: Float32Array | Uint16Array, start = 0): void {
    const entry = this.entry(name);
    const count = dest.length;
    if (start < 0 || start + count > shapeSize(entry.shape)) {
      throw new TroupeError('invariant', `internal invariant broken: reading ${count} elements at ${start} of ${name} ${formatShape(entry.shape)}`);
    }
    const bytes = dtypeBytes(entry.dtype);
    const position = this.dataStart + entry.begin + start * bytes;
    const wantsBf16 = dest instanceof Uint16Array;
    if (LITTLE_ENDIAN_HOST && (wantsBf16 ? entry.dtype === 'BF16' : entry.dtype === 'F32')) {
      readFully(this.openFd(), new Uint8Array(dest.buffer, dest.byteOffset, dest.byteLength), position, this.path);
      return;
    }
    for (let done = 0; done < count; done += CHUNK_ELEMENTS) {
      const n = Math.min(CHUNK_ELEMENTS, count - done);
      const raw = this.chunk(n * bytes);
      readFully(this.openFd(), raw, position + done * bytes, this.path);
      convert(raw, entry.dtype, dest.subarray(done, done + n));
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.scratch = null;
  }

  private openFd(): number {
    if (this.fd === null) throw new TroupeError('invariant', `internal invariant broken: ${this.path} was read after close`);
    return this.fd;
  }

  /** A reused, 4-byte aligned scratch buffer of at least `bytes` (one conversion chunk). */
  private chunk(bytes: number): Uint8Array {
    if (this.scratch === null || this.scratch.length < bytes) this.scratch = new Uint8Array(new ArrayBuffer(Math.max(bytes, CHUNK_ELEMENTS * 4)));
    return this.scratch.subarray(0, bytes);
  }
}

/** Stored little-endian elements `raw` of `dtype` into float32 values or bf16 bits. */
function convert(raw: Uint8Array, dtype: HeaderEntry['dtype'], dest: Float32Array | Uint16Array): void {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const n = dest.length;
  if (dest instanceof Float32Array) {
    if (dtype === 'F32') for (let i = 0; i < n; i++) dest[i] = view.getFloat32(4 * i, true);
    else if (dtype === 'BF16') {
      const u32 = new Uint32Array(dest.buffer, dest.byteOffset, n);
      for (let i = 0; i < n; i++) u32[i] = view.getUint16(2 * i, true) << 16;
    } else for (let i = 0; i < n; i++) dest[i] = f16BitsToNumber(view.getUint16(2 * i, true));
    return;
  }
  if (dtype === 'F32') {
    const values = new Float32Array(n);
    for (let i = 0; i < n; i++) values[i] = view.getFloat32(4 * i, true);
    f32ToBf16(values, dest);
  } else if (dtype === 'BF16') for (let i = 0; i < n; i++) dest[i] = view.getUint16(2 * i, true);
  else for (let i = 0; i < n; i++) dest[i] = numberToBf16Bits(f16BitsToNumber(view.getUint16(2 * i, true)));
}

/** readSync until `target` is full; a short file is a checkpoint error (it shrank after open). */
function readFully(fd: number, target: Uint8Array, position: number, path: string): void {
  let done = 0;
  while (done < target.length) {
    const got = readSync(fd, target, done, target.length - done, position + done);
    if (got === 0) throw corrupt(path, `the file ended at byte ${position + done} while reading ${target.length} bytes at ${position} (truncated or changed while reading?)`);
    done += got;
  }
}
