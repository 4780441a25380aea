/**
 * Seeded, splittable randomness. Everything random in Troupe (task generation, scripted
 * policies, sampling) draws from an Rng derived from the run seed plus a path of labels, so
 * that results never depend on the order in which independent work happens to run.
 */

/** 32-bit FNV-1a over a string, used to turn labels into seed material. */
function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Mixes 32-bit words into one well-spread 32-bit seed (murmur3 finalizer per step). */
function mix(a: number, b: number): number {
  let h = (a ^ Math.imul(b ^ (b >>> 16), 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Derives a child seed from a seed and a path of labels: deriveSeed(7, 'task', 3, 'tool'). */
export function deriveSeed(seed: number, ...path: Array<string | number>): number {
  let h = mix(0x9e3779b9, seed >>> 0);
  for (const part of path) {
    h = mix(h, typeof part === 'number' ? part >>> 0 : hashString(part));
  }
  return h;
}

/**
 * sfc32: small, fast, good-quality PRNG with 128-bit state. Tasks derive one stream per
 * instance, so train and eval never share instances and nothing depends on making order.
 *
 * @example
 * ```ts
 * const rng = Rng.derive(seed, 'guess', split, index);
 * const secret = rng.int(10);        // 0..9
 * const heads = rng.next() < 0.5;    // [0, 1)
 * ```
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 12; i++) this.nextU32();
  }

  /** A new independent generator for a labelled sub-stream. */
  static derive(seed: number, ...path: Array<string | number>): Rng {
    return new Rng(deriveSeed(seed, ...path));
  }

  nextU32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick on an empty list');
    return items[this.int(items.length)] as T;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }

  /** Internal state, for checkpoints that must resume the exact stream. */
  getState(): [number, number, number, number] {
    return [this.a, this.b, this.c, this.d];
  }

  setState(state: readonly [number, number, number, number]): void {
    [this.a, this.b, this.c, this.d] = state;
  }
}
