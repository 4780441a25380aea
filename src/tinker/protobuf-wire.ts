/**
 * The protobuf wire format, just enough for the Tinker messages (tinker-proto.ts): varints,
 * length-delimited fields (bytes, strings, sub-messages, packed repeated ints), and 32/64-bit
 * fixed fields (float, double). Field numbers and types come from the message schemas; this
 * file knows nothing of them.
 *
 *   const w = new ProtoWriter();
 *   w.string(1, 'model-0'); w.varint(2, 7); w.message(3, (m) => m.bytes(1, data));
 *   const bytes = w.finish();
 *   for (const f of readFields(bytes)) if (f.field === 1) name = f.string();
 *
 * Unknown fields are skipped by callers (forward compatibility, as protobuf requires).
 */
import { TroupeError } from '../util/errors.js';

/** Wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32. */
export type WireType = 0 | 1 | 2 | 5;

export class ProtoWriter {
  private readonly parts: Uint8Array[] = [];
  private readonly scratch: number[] = [];

  /** A varint field (int32/int64/uint/bool/enum); negative numbers use 10 bytes, as protobuf does. */
  varint(field: number, value: number | bigint | boolean): void {
    this.tag(field, 0);
    this.rawVarint(BigInt.asUintN(64, BigInt(typeof value === 'boolean' ? Number(value) : value)));
  }

  double(field: number, value: number): void {
    this.tag(field, 1);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, value, true);
    this.push(b);
  }

  float(field: number, value: number): void {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
  }

  bytes(field: number, value: Uint8Array): void {
    this.tag(field, 2);
    this.rawVarint(BigInt(value.length));
    this.push(value);
  }

  string(field: number, value: string): void {
    this.bytes(field, new TextEncoder().encode(value));
  }

  /** A sub-message written by `write` into its own writer. */
  message(field: number, write: (w: ProtoWriter) => void): void {
    const inner = new ProtoWriter();
    write(inner);
    this.bytes(field, inner.finish());
  }

  /** A packed repeated varint field (proto3's default for repeated scalars). */
  packedVarints(field: number, values: readonly number[]): void {
    if (values.length === 0) return;
    const inner = new ProtoWriter();
    for (const v of values) inner.rawVarint(BigInt.asUintN(64, BigInt(v)));
    this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    this.flush();
    const total = this.parts.reduce((n, p) => n + p.length, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  private tag(field: number, wire: WireType): void {
    this.rawVarint(BigInt(field * 8 + wire));
  }

  private rawVarint(v: bigint): void {
    while (v >= 0x80n) {
      this.scratch.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.scratch.push(Number(v));
  }

  private push(b: Uint8Array): void {
    this.flush();
    this.parts.push(b);
  }

  private flush(): void {
    if (this.scratch.length === 0) return;
    this.parts.push(Uint8Array.from(this.scratch));
    this.scratch.length = 0;
  }
}

/** One field as read from the wire; call the accessor that matches the schema's type. */
export interface ProtoField {
  readonly field: number;
  readonly wire: WireType;
  /** varint as a signed 64-bit number (int32/int64 fields; fits a JS number below 2^53). */
  int(): number;
  bool(): boolean;
  double(): number;
  float(): number;
  bytes(): Uint8Array;
  string(): string;
  /** The values of a repeated varint field, packed or not. */
  varints(): number[];
}

function protoError(message: string): TroupeError {
  return new TroupeError('input', `protobuf body: ${message}; send the message the Tinker SDK's tinker_public.proto describes`);
}

function readVarint(buf: Uint8Array, at: number): { value: bigint; next: number } {
  let value = 0n;
  let shift = 0n;
  for (let i = at; i < buf.length && i < at + 10; i++) {
    const byte = buf[i]!;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
    shift += 7n;
  }
  throw protoError(`truncated varint at byte ${at}`);
}

/** Reads every field of one message, in wire order. */
export function readFields(buf: Uint8Array): ProtoField[] {
  const fields: ProtoField[] = [];
  let at = 0;
  while (at < buf.length) {
    const key = readVarint(buf, at);
    at = key.next;
    const field = Number(key.value >> 3n);
    const wire = Number(key.value & 7n);
    let start = at;
    let end: number;
    if (wire === 0) end = readVarint(buf, at).next;
    else if (wire === 1) end = at + 8;
    else if (wire === 5) end = at + 4;
    else if (wire === 2) {
      const len = readVarint(buf, at);
      start = len.next;
      end = start + Number(len.value);
    } else throw protoError(`field ${field} has wire type ${wire}, which this schema never uses`);
    if (end > buf.length) throw protoError(`field ${field} runs past the end of the message (${end} > ${buf.length} bytes)`);
    fields.push(makeField(buf, field, wire as WireType, start, end));
    at = end;
  }
  return fields;
}

function makeField(buf: Uint8Array, field: number, wire: WireType, start: number, end: number): ProtoField {
  const view = () => new DataView(buf.buffer, buf.byteOffset + start, end - start);
  const expect = (w: WireType, what: string) => {
    if (wire !== w) throw protoError(`field ${field} should be ${what} (wire type ${w}) but has wire type ${wire}`);
  };
  return {
    field,
    wire,
    int: () => {
      expect(0, 'a varint');
      return Number(BigInt.asIntN(64, readVarint(buf, start).value));
    },
    bool: () => {
      expect(0, 'a varint');
      return readVarint(buf, start).value !== 0n;
    },
    double: () => {
      expect(1, 'a double');
      return view().getFloat64(0, true);
    },
    float: () => {
      expect(5, 'a float');
      return view().getFloat32(0, true);
    },
    bytes: () => {
      expect(2, 'length-delimited');
      return buf.subarray(start, end);
    },
    string: () => {
      expect(2, 'a string');
      return new TextDecoder().decode(buf.subarray(start, end));
    },
    varints: () => {
      if (wire === 0) return [Number(BigInt.asIntN(64, readVarint(buf, start).value))];
      expect(2, 'packed varints');
      const out: number[] = [];
      for (let at = start; at < end; ) {
        const v = readVarint(buf, at);
        out.push(Number(BigInt.asIntN(64, v.value)));
        at = v.next;
      }
      return out;
    },
  };
}
