/**
 * Conversions from the 16-bit float formats found in published checkpoints to float32.
 * Troupe computes in float32 only, so these are read-side helpers; bit layouts:
 *   F16 (IEEE binary16): 1 sign, 5 exponent (bias 15), 10 mantissa bits.
 *   BF16 (bfloat16):     the top 16 bits of a float32 (1 sign, 8 exponent, 7 mantissa).
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

/** Decodes `count` little-endian 16-bit values starting at `byteOffset` of `view`. */
export function decodeHalfArray(view: DataView, byteOffset: number, count: number, format: 'F16' | 'BF16'): Float32Array {
  const out = new Float32Array(count);
  const convert = format === 'F16' ? f16BitsToNumber : bf16BitsToNumber;
  for (let i = 0; i < count; i++) out[i] = convert(view.getUint16(byteOffset + 2 * i, true));
  return out;
}
