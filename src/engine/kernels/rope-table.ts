import { TroupeError } from '../../util/errors.js';

/** Where the tables live: the WASM heap, or native memory. */
export interface TableMemory {
  alloc(length: number): Float32Array;
  free(array: Float32Array): void;
}

interface Table {
  positions: number;
  cos: Float32Array;
  sin: Float32Array;
}

/**
 * cos/sin of pos * invFreq[i] for pos < capacity, i < invFreq.length, kept in the heap per
 * distinct inverse-frequency table (keyed by its contents, so callers may pass a fresh copy)
 * and doubled when a larger position shows up. Computed with Math.cos in float64 like the
 * reference, so the WASM and native kernels only multiply.
 */
export class RopeTables {
  private readonly tables = new Map<string, Table>();

  constructor(private readonly heap: TableMemory) {}

  /** The table covering every entry of positions[0:tokens]. */
  get(positions: Int32Array, tokens: number, invFreq: Float32Array): Table {
    let maxPos = 0;
    for (let t = 0; t < tokens; t++) {
      const pos = positions[t]!;
      if (pos < 0) {
        throw new TroupeError('engine', `rope: positions[${t}] is ${pos}; positions must be >= 0`);
      }
      if (pos > maxPos) maxPos = pos;
    }
    // A model has one or two tables of <= 128 entries; joining them costs far less than the
    // projections around each rope call.
    const key = invFreq.join(',');
    let table = this.tables.get(key);
    if (!table || table.positions <= maxPos) {
      if (table) {
        this.heap.free(table.cos);
        this.heap.free(table.sin);
      }
      table = this.build(Math.max(256, 2 ** Math.ceil(Math.log2(maxPos + 1))), invFreq);
      this.tables.set(key, table);
    }
    return table;
  }

  private build(positions: number, invFreq: Float32Array): Table {
    const half = invFreq.length;
    const cos = this.heap.alloc(positions * half);
    const sin = this.heap.alloc(positions * half);
    for (let i = 0; i < half; i++) {
      const frequency = invFreq[i]!;
      for (let pos = 0; pos < positions; pos++) {
        cos[pos * half + i] = Math.cos(pos * frequency);
        sin[pos * half + i] = Math.sin(pos * frequency);
      }
    }
    return { positions, cos, sin };
  }
}
