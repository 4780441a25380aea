import type { Heap } from './heap.js';

type KernelArray = Float32Array | Int32Array | Uint16Array;

interface Temp {
  source: KernelArray;
  view: KernelArray;
  start: number;
  writeBack: boolean;
}

/**
 * Gives every array argument of one kernel call an address in the heap. Heap views pass
 * through untouched; any other typed array is copied into a temporary block, and after the
 * call outputs are copied back and the blocks freed. The same source array used twice in
 * one call (out aliasing a) maps to the same block.
 */
export class CallArena {
  private temps: Temp[] = [];

  constructor(private readonly heap: Heap) {}

  /** Heap address of the first `length` elements of `array`. */
  ptr(array: KernelArray, length: number, writeBack: boolean): number {
    if (this.heap.owns(array)) return array.byteOffset;
    for (const temp of this.temps) {
      if (temp.source === array) {
        temp.writeBack ||= writeBack;
        return temp.start;
      }
    }
    const start = this.heap.allocBytes(length * array.BYTES_PER_ELEMENT);
    const buffer = this.heap.memory.buffer;
    const view = array instanceof Int32Array ? new Int32Array(buffer, start, length)
      : array instanceof Uint16Array ? new Uint16Array(buffer, start, length) : new Float32Array(buffer, start, length);
    view.set(array.subarray(0, length) as never);
    this.temps.push({ source: array, view, start, writeBack });
    return start;
  }

  /** A scratch block of `bytes`, freed by `finish`. */
  scratch(bytes: number): number {
    const start = this.heap.allocBytes(bytes);
    this.temps.push({ source: new Float32Array(0), view: new Float32Array(0), start, writeBack: false });
    return start;
  }

  /** Copies outputs back and frees the temporaries; call in `finally`. */
  finish(): void {
    if (this.temps.length === 0) return;
    for (const temp of this.temps) {
      if (temp.writeBack) temp.source.set(temp.view);
      this.heap.freeBytes(temp.start);
    }
    this.temps = [];
  }
}
