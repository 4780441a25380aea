import { Worker } from 'node:worker_threads';
import { TroupeError } from '../../util/errors.js';

/**
 * One helper thread for large matmuls, sharing the work by chunks of output rows or
 * columns. Both threads claim chunks from one atomic counter, so when the worker is slow
 * to wake (other processes on the cores) the calling thread simply does more chunks: two
 * threads are never much slower than one. Each output is computed the same way whichever
 * thread claims its chunk, so results do not depend on the timing.
 *
 * The worker instantiates the same compiled module on the same shared memory and sleeps in
 * Atomics.wait on a control block in that memory; no message passing per call. Inline
 * worker source (eval) so it runs the same from dist/ and under tsx.
 *
 * Control block (Int32 slots):
 *   0 SEQ      bumped per job to wake the worker       1 QUIT
 *   2 WORK     job id << 14 | chunk count << 7 | next chunk (claimed by compareExchange)
 *   3 FINISHED chunks completed in the current job      4 ERROR
 *   5.. args   a b c m n k flags byRows chunkSize kc mc nc
 */
const SLOTS = 32;
const SEQ = 0;
const QUIT = 1;
const WORK = 2;
const FINISHED = 3;
const ERROR = 4;
const ARGS = 5;
/** Chunk counts and indexes get 7 bits each in WORK. */
export const MAX_CHUNKS = 64;

// Runs one claimed chunk; shared by both threads (the worker gets it as source text).
const RUN_CHUNK = `function runChunk(exports, ctl, chunk, scratch) {
  const [a, b, c, m, n, k, flags, byRows, size, kc, mc, nc] = ctl.subarray(${ARGS}, ${ARGS + 12});
  const lo = chunk * size;
  if (byRows) exports.matmul_block(a, b, c, m, n, k, flags, lo, Math.min(m, lo + size), 0, n, scratch, kc, mc, nc);
  else exports.matmul_block(a, b, c, m, n, k, flags, 0, m, lo, Math.min(n, lo + size), scratch, kc, mc, nc);
}
function claim(ctl) {
  for (;;) {
    const word = Atomics.load(ctl, ${WORK});
    const next = word & 127;
    if (next >= ((word >>> 7) & 127)) return -1;
    if (Atomics.compareExchange(ctl, ${WORK}, word, word + 1) === word) return next;
  }
}
function work(exports, ctl, scratch) {
  for (let chunk = claim(ctl); chunk >= 0; chunk = claim(ctl)) {
    try { runChunk(exports, ctl, chunk, scratch); } catch (error) { Atomics.store(ctl, ${ERROR}, 1); }
    Atomics.add(ctl, ${FINISHED}, 1);
    Atomics.notify(ctl, ${FINISHED});
  }
}`;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { module, memory, control, scratch } = workerData;
const { exports } = new WebAssembly.Instance(module, { env: { memory } });
const ctl = new Int32Array(memory.buffer, control, ${SLOTS});
${RUN_CHUNK}
parentPort.postMessage('ready');
let seen = 0;
for (;;) {
  Atomics.wait(ctl, ${SEQ}, seen);
  seen = Atomics.load(ctl, ${SEQ});
  if (Atomics.load(ctl, ${QUIT}) === 1) break;
  work(exports, ctl, scratch);
}
`;

type WorkFn = (exports: unknown, ctl: Int32Array, scratch: number) => void;
const work = new Function(`${RUN_CHUNK}\nreturn work;`)() as WorkFn;

export interface MatmulJob {
  /** a, b, c, m, n, k, flags as for matmul_block. */
  readonly args: readonly number[];
  readonly byRows: boolean;
  /** Rows or columns per chunk (a multiple of the 4-row / 8-column tile). */
  readonly chunkSize: number;
  readonly chunks: number;
  readonly blocking: readonly [number, number, number];
}

export class ThreadPool {
  private sequence = 0;
  private job = 0;
  private disposed = false;

  private constructor(
    private readonly worker: Worker,
    private readonly control: Int32Array,
  ) {}

  /** Starts the helper; `controlPtr` (128 bytes) and `scratchPtr` are heap blocks it owns. */
  static async start(module: WebAssembly.Module, memory: WebAssembly.Memory, controlPtr: number, scratchPtr: number): Promise<ThreadPool> {
    const control = new Int32Array(memory.buffer, controlPtr, SLOTS);
    control.fill(0);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // Do not inherit flags such as --input-type=module, which would make the eval'd
      // CommonJS source an ES module; the worker needs no loader (it runs plain JS).
      execArgv: [],
      workerData: { module, memory, control: controlPtr, scratch: scratchPtr },
    });
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', (cause) => reject(new TroupeError('engine', `the kernel worker thread failed to start: ${String(cause)}; run with TROUPE_THREADS=1 to use one thread`, { cause })));
    });
    // An idle worker sleeps in Atomics.wait; unref so it never keeps the process alive.
    worker.unref();
    return new ThreadPool(worker, control);
  }

  /** Runs a chunked matmul on both threads; returns when every chunk is done. */
  runMatmul(exports: unknown, scratch: number, job: MatmulJob): void {
    if (this.disposed) throw new TroupeError('engine', 'these kernels were disposed; create new kernels with createWasmKernels');
    if (job.chunks < 1 || job.chunks > MAX_CHUNKS) throw new TroupeError('invariant', `internal invariant broken: ${job.chunks} matmul chunks`);
    const ctl = this.control;
    ctl.set([...job.args, job.byRows ? 1 : 0, job.chunkSize, ...job.blocking], ARGS);
    Atomics.store(ctl, FINISHED, 0);
    this.job = (this.job + 1) & 0x1ffff;
    Atomics.store(ctl, WORK, (this.job << 14) | (job.chunks << 7));
    this.sequence = (this.sequence + 1) | 0;
    Atomics.store(ctl, SEQ, this.sequence);
    Atomics.notify(ctl, SEQ);
    work(exports, ctl, scratch);
    for (;;) {
      const finished = Atomics.load(ctl, FINISHED);
      if (finished === job.chunks) break;
      Atomics.wait(ctl, FINISHED, finished);
    }
    if (Atomics.load(ctl, ERROR) !== 0) {
      Atomics.store(ctl, ERROR, 0);
      throw new TroupeError('invariant', 'internal invariant broken: a matmul chunk trapped inside matmul_block (an out-of-bounds shape?)');
    }
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    Atomics.store(this.control, QUIT, 1);
    Atomics.store(this.control, SEQ, (this.sequence + 1) | 0);
    Atomics.notify(this.control, SEQ);
    await this.worker.terminate();
  }
}
