/**
 * The 16-bit float formats found in published checkpoints, to and from float32. Bit layouts:
 *   F16 (IEEE binary16): 1 sign, 5 exponent (bias 15), 10 mantissa bits.
 *   BF16 (bfloat16):     the top 16 bits of a float32 (1 sign, 8 exponent, 7 mantissa).
 * bf16 -> f32 is exact (shift left 16); f32 -> bf16 rounds to nearest, ties to even, and keeps
 * NaN a (quiet) NaN, as torch's `.to(torch.bfloat16)` does.
 */

/** One IEEE binary16 bit pattern as a number (exact: every f16 value is a float32 value). */
export function f16BitsToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24; // zero and subnormals
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** One bfloat16 bit pattern as a number. */
export function bf16BitsToNumber(bits: number): number {
  u32Scratch[0] = (bits & 0xffff) << 16;
  return f32Scratch[0] as number;
}

/** The bfloat16 bits nearest to the float32 whose bits are `u` (ties to even). */
function roundBitsToBf16(u: number): number {
  if ((u & 0x7f800000) === 0x7f800000 && (u & 0x007fffff) !== 0) return ((u >>> 16) | 0x0040) & 0xffff; // NaN stays NaN
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/** One number as the nearest bfloat16 bit pattern (after rounding it to float32). */
export function numberToBf16Bits(value: number): number {
  f32Scratch[0] = value;
  return roundBitsToBf16(u32Scratch[0] as number);
}

/** out[i] = bf16 bits of f32[i], rounded to nearest even. */
export function f32ToBf16(f32: Float32Array, out: Uint16Array): void {
  const u32 = new Uint32Array(f32.buffer, f32.byteOffset, f32.length);
  for (let i = 0; i < f32.length; i++) out[i] = roundBitsToBf16(u32[i]!);
}

/**
 * out[i] = src[i] rounded to bf16 and widened back, as vcvtneps2bf16 rounds: to nearest
 * even, subnormal inputs to signed zero, NaN stays NaN. out may alias src.
 */
export function roundToBf16(src: Float32Array, out: Float32Array): void {
  const from = new Uint32Array(src.buffer, src.byteOffset, src.length);
  const to = new Uint32Array(out.buffer, out.byteOffset, out.length);
  for (let i = 0; i < src.length; i++) {
    const u = from[i]!;
    to[i] = (u & 0x7f800000) === 0 ? u & 0x80000000 : roundBitsToBf16(u) << 16;
  }
}

/** out[i] = the float32 value of bf16 bits[i] (exact). */
export function bf16ToF32(bits: Uint16Array, out: Float32Array): void {
  const u32 = new Uint32Array(out.buffer, out.byteOffset, out.length);
  for (let i = 0; i < bits.length; i++) u32[i] = bits[i]! << 16;
}

/** Decodes `count` little-endian 16-bit values starting at `byteOffset` of `view`. */
export function decodeHalfArray(view: DataView, byteOffset: number, count: number, format: 'F16' | 'BF16'): Float32Array {
  const out = new Float32Array(count);
  const convert = format === 'F16' ? f16BitsToNumber : bf16BitsToNumber;
  for (let i = 0; i < count; i++) out[i] = convert(view.getUint16(byteOffset + 2 * i, true));
  return out;
}
