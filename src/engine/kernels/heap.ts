import { TroupeError } from '../../util/errors.js';

const PAGE_BYTES = 65536;
const ALIGN = 16;
/** Largest wasm32 memory: 65536 pages = 4 GiB. Shared memory must declare a maximum. */
export const MAX_PAGES = 65536;

interface FreeBlock {
  start: number;
  size: number;
}

/**
 * A first-fit allocator with coalescing over one shared WebAssembly.Memory. Blocks are
 * 16-byte aligned (v128 loads). Growing the memory never moves anything, and views into a
 * shared memory stay valid after a grow (its buffer does not detach), so every array handed
 * out keeps working for the life of the heap.
 */
export class Heap {
  readonly memory: WebAssembly.Memory;
  /**
   * Every SharedArrayBuffer object the memory has exposed that a handed-out view uses. V8
   * gives `memory.buffer` a new object after a grow of THIS memory, and also (observed on
   * Node 20) after a grow of ANOTHER shared memory of the process; so the buffer of each
   * view is recorded when the view is made, not only after our own grows.
   */
  private readonly buffers = new Set<ArrayBufferLike>();
  /** Free blocks sorted by start, never adjacent (adjacent ones are merged). */
  private readonly freeBlocks: FreeBlock[] = [];
  /** start -> size of every live block. */
  private readonly live = new Map<number, number>();

  constructor(initialPages = 256) {
    this.memory = new WebAssembly.Memory({ initial: initialPages, maximum: MAX_PAGES, shared: true });
    this.buffers.add(this.memory.buffer);
    // Address 0 is never handed out so that 0 can mean "no pointer".
    this.freeBlocks.push({ start: ALIGN, size: initialPages * PAGE_BYTES - ALIGN });
  }

  /** Bytes currently in the memory (grows on demand). */
  get byteLength(): number {
    return this.memory.buffer.byteLength;
  }

  /** Bytes handed out and not yet freed. */
  get liveBytes(): number {
    let total = 0;
    for (const size of this.live.values()) total += size;
    return total;
  }

  get freeBlockCount(): number {
    return this.freeBlocks.length;
  }

  /** True when `array` is a view of this heap's memory (no copy needed). */
  owns(array: ArrayBufferView): boolean {
    return this.buffers.has(array.buffer);
  }

  /** Reserves `bytes` (rounded up to 16) and returns the address; contents are unspecified. */
  allocBytes(bytes: number): number {
    const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    let index = this.freeBlocks.findIndex((block) => block.size >= size);
    if (index < 0) index = this.grow(size);
    const block = this.freeBlocks[index]!;
    const start = block.start;
    if (block.size === size) this.freeBlocks.splice(index, 1);
    else {
      block.start += size;
      block.size -= size;
    }
    this.live.set(start, size);
    return start;
  }

  freeBytes(start: number): void {
    const size = this.live.get(start);
    if (size === undefined) {
      throw new TroupeError('engine', `free: address ${start} was not returned by alloc or was already freed; free each allocation exactly once, with the array alloc returned`);
    }
    this.live.delete(start);
    // Insert in order, then merge with the neighbours it touches.
    let lo = 0;
    let hi = this.freeBlocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.freeBlocks[mid]!.start < start) lo = mid + 1;
      else hi = mid;
    }
    this.freeBlocks.splice(lo, 0, { start, size });
    const next = this.freeBlocks[lo + 1];
    if (next && start + size === next.start) {
      this.freeBlocks[lo]!.size += next.size;
      this.freeBlocks.splice(lo + 1, 1);
    }
    const prev = this.freeBlocks[lo - 1];
    if (prev && prev.start + prev.size === start) {
      prev.size += this.freeBlocks[lo]!.size;
      this.freeBlocks.splice(lo, 1);
    }
  }

  /** A zero-filled Float32Array of `length` in the heap. */
  alloc(length: number): Float32Array {
    if (!Number.isInteger(length) || length < 0) {
      throw new TroupeError('engine', `alloc: length must be a non-negative integer, got ${length}`);
    }
    const start = this.allocBytes(length * 4);
    const buffer = this.memory.buffer;
    this.buffers.add(buffer);
    const view = new Float32Array(buffer, start, length);
    view.fill(0);
    return view;
  }

  free(array: Float32Array): void {
    if (!this.owns(array) || this.live.get(array.byteOffset) === undefined) {
      throw new TroupeError('engine', `free: this Float32Array (length ${array.length}, offset ${array.byteOffset}) was not returned by alloc of these kernels, or was already freed; pass the array alloc returned`);
    }
    this.freeBytes(array.byteOffset);
  }

  /** Grows the memory so a block of `size` fits; returns the free-list index that holds it. */
  private grow(size: number): number {
    const end = this.memory.buffer.byteLength;
    const last = this.freeBlocks[this.freeBlocks.length - 1];
    const tail = last && last.start + last.size === end ? last.size : 0;
    const currentPages = end / PAGE_BYTES;
    // Grow by at least 1/8 of the heap so that many small grows do not each cost a call.
    const pages = Math.max(Math.ceil((size - tail) / PAGE_BYTES), Math.ceil(currentPages / 8));
    const allowed = Math.min(pages, MAX_PAGES - currentPages);
    if (allowed * PAGE_BYTES + tail < size) {
      throw new TroupeError('engine', `out of kernel memory: need ${size} more bytes but the heap is at ${end} bytes of the 4 GiB WebAssembly limit; use a smaller model or batch`);
    }
    try {
      this.memory.grow(allowed);
    } catch (cause) {
      throw new TroupeError('engine', `out of memory: could not grow the kernel heap from ${end} bytes by ${allowed * PAGE_BYTES}; use a smaller model or batch`, { cause });
    }
    this.buffers.add(this.memory.buffer);
    const added = allowed * PAGE_BYTES;
    if (tail > 0) last!.size += added;
    else this.freeBlocks.push({ start: end, size: added });
    return this.freeBlocks.length - 1;
  }
}
