// The allocation pattern of one LoRA training step, shared by native-memory.test.ts (the addon's
// counts) and bench/native-memory-rss.ts (what the process's RSS does with it).
import type { NativeBinding } from './native-binding.js';

/**
 * The allocation pattern of one LoRA training step on one 256-token row, for 14 layers: per
 * layer a few small blocks (norm statistics, LoRA intermediates), eight 127 KB blocks
 * (per-head attention slices) and one ~1 MB block (the hidden states), all written and kept
 * through the forward pass; a gradient of each taken and dropped on the way back; everything
 * freed at the end (tape.dispose).
 */
export function trainingStepPattern(native: NativeBinding): void {
  const small = [16, 1024, 2032, 3072, 4064, 8160];
  const kept: Float32Array[] = [];
  for (let layer = 0; layer < 14; layer++) {
    for (const length of small) kept.push(native.alloc(length));
    for (let head = 0; head < 8; head++) kept.push(native.alloc(32512));
    kept.push(native.alloc(260096));
  }
  for (const a of kept) a.fill(1);
  for (let i = kept.length - 1; i >= 0; i--) {
    const grad = native.alloc(kept[i]!.length);
    grad.fill(2);
    native.free(grad);
    if (i % 3 === 0) native.free(kept[i]!);
  }
  for (const a of kept) native.free(a);
}
