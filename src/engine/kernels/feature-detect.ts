import v8 from 'node:v8';

export type SimdFlavor = 'relaxed' | 'plain';

/**
 * The smallest module that uses f32x4.relaxed_madd: (func (param v128 v128 v128) (result v128)
 * (f32x4.relaxed_madd (local.get 0) (local.get 1) (local.get 2))), hand-assembled.
 */
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b, // type: (v128 v128 v128) -> v128
  0x03, 0x02, 0x01, 0x00, // one function of type 0
  0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfd, 0x85, 0x02, 0x0b, // body
]);

let detected: SimdFlavor | undefined;

/**
 * Picks the SIMD flavour once per process. Node 20 ships relaxed SIMD behind a V8 flag, which
 * must be set before the first module using it is compiled; where the flag or the
 * instruction is missing, the plain SIMD build is used.
 */
export function detectSimdFlavor(): SimdFlavor {
  if (detected) return detected;
  try {
    if (!WebAssembly.validate(RELAXED_PROBE)) v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
    detected = WebAssembly.validate(RELAXED_PROBE) ? 'relaxed' : 'plain';
  } catch {
    detected = 'plain';
  }
  return detected;
}
