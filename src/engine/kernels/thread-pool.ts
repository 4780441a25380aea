import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { TroupeError } from '../../util/errors.js';

/**
 * Helper threads (N - 1 workers for N threads) for large matmuls, sharing the work by chunks
 * of output rows or columns. Every thread claims chunks from one atomic counter, so when a
 * worker is slow to wake (other processes on the cores) the others simply do more chunks; a
 * worker descheduled in the middle of a chunk is handled by shouldSplit. Each output is
 * computed the same way whichever thread claims its chunk, so results depend neither on the
 * timing nor on the number of workers.
 *
 * Each worker instantiates the same compiled module on the same shared memory, with its own
 * packing scratch, and waits on a control block in that memory; no message passing per call.
 * Inline worker source (eval) so it runs the same from dist/ and under tsx.
 *
 * Hand-off: a futex wake-up (Atomics.wait / notify) costs tens of microseconds, more on a
 * busy machine, while one decoding matvec takes 5-30 us. So both sides first spin on the
 * control word for a bounded time (SPIN_MS) and only then sleep: during decoding or a
 * training step, where kernel calls follow each other within microseconds, the worker is
 * awake when the next job arrives. The spin is bounded so an idle engine costs no CPU.
 *
 * Control block (Int32 slots):
 *   0 SEQ      bumped per job to wake the workers      1 QUIT
 *   2 WORK     job id << 14 | chunk count << 7 | next chunk (claimed by compareExchange)
 *   3 FINISHED chunks completed in the current job      4 ERROR
 *   5.. args   a b c m n k flags byRows chunkSize kc mc nc kind
 *              kind 0: matmul_block over row or column chunks; kind 1: matmul_rows of one
 *              output row (m = 1, transB) over column chunks (decoding x W^T)
 *   30 AWAKE   workers spinning or working (the others sleep)
 */
const SLOTS = 32;
const SEQ = 0;
const QUIT = 1;
const WORK = 2;
const FINISHED = 3;
const ERROR = 4;
const ARGS = 5;
const AWAKE = 30;
/** Chunk counts and indexes get 7 bits each in WORK. */
export const MAX_CHUNKS = 64;
/** How long either side spins on the control block before sleeping in Atomics.wait. */
const SPIN_MS = 0.2;
/** Jobs of at least this many multiply-adds always use both threads (a stall is amortised). */
const BIG_JOB = 2 ** 25;
/** Calls that smaller jobs run on one thread after a stall: doubles per repeated stall. */
const MIN_BACKOFF = 64;
const MAX_BACKOFF = 8192;
/**
 * A sleeping worker is woken for a small job once per this many small jobs, doubling (up to
 * MAX_PROBE_EVERY) each time the woken worker arrives too late to take a chunk: on a busy
 * machine a wake-up can even preempt the calling thread.
 */
const MIN_PROBE_EVERY = 64;
const IDLE_SPLITS = 8;
const MAX_PROBE_EVERY = 16384;

// Runs one claimed chunk; shared by every thread (the workers get it as source text).
const RUN_CHUNK = `function runChunk(exports, ctl, chunk, scratch) {
  const [a, b, c, m, n, k, flags, byRows, size, kc, mc, nc, kind] = ctl.subarray(${ARGS}, ${ARGS + 13});
  const lo = chunk * size;
  if (kind === 1) exports.matmul_rows(a, b + lo * k * (flags & 8 ? 2 : 4), c + lo * 4, 1, Math.min(n, lo + size) - lo, k, flags); // flag 8: b is bf16
  else if (byRows) exports.matmul_block(a, b, c, m, n, k, flags, lo, Math.min(m, lo + size), 0, n, scratch, kc, mc, nc);
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
// Spins until ctl[slot] !== value or SPIN_MS pass; returns the slot's latest value.
function spinWhile(ctl, slot, value) {
  let now = Atomics.load(ctl, slot);
  if (now !== value) return now;
  const deadline = performance.now() + ${SPIN_MS};
  for (let i = 1; ; i++) {
    now = Atomics.load(ctl, slot);
    if (now !== value || ((i & 255) === 0 && performance.now() > deadline)) return now;
  }
}
// Runs chunks until none is left to claim; returns how many this thread ran.
function work(exports, ctl, scratch) {
  let ran = 0;
  for (let chunk = claim(ctl); chunk >= 0; chunk = claim(ctl)) {
    try { runChunk(exports, ctl, chunk, scratch); } catch (error) { Atomics.store(ctl, ${ERROR}, 1); }
    ran++;
    Atomics.add(ctl, ${FINISHED}, 1);
    Atomics.notify(ctl, ${FINISHED});
  }
  return ran;
}`;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { module, memory, control, scratch } = workerData;
const { exports } = new WebAssembly.Instance(module, { env: { memory } });
const ctl = new Int32Array(memory.buffer, control, ${SLOTS});
${RUN_CHUNK}
parentPort.postMessage('ready');
let seen = 0;
Atomics.add(ctl, ${AWAKE}, 1);
for (;;) {
  if (spinWhile(ctl, ${SEQ}, seen) === seen) {
    Atomics.sub(ctl, ${AWAKE}, 1);
    Atomics.wait(ctl, ${SEQ}, seen);
    Atomics.add(ctl, ${AWAKE}, 1);
  }
  seen = Atomics.load(ctl, ${SEQ});
  if (Atomics.load(ctl, ${QUIT}) === 1) break;
  work(exports, ctl, scratch);
}
`;

type WorkFn = (exports: unknown, ctl: Int32Array, scratch: number) => number;
type SpinFn = (ctl: Int32Array, slot: number, value: number) => number;
const { work, spinWhile } = new Function(`${RUN_CHUNK}\nreturn { work, spinWhile };`)() as { work: WorkFn; spinWhile: SpinFn };

export interface MatmulJob {
  /** 'block' (default): matmul_block chunks; 'rows': matmul_rows column chunks of a 1-row x W^T. */
  readonly kind?: 'block' | 'rows';
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
  /** Small jobs left to run on the calling thread alone, and the next back-off length. */
  private skip = 0;
  private backoff = MIN_BACKOFF;
  private sinceProbe = 0;
  private probeEvery = MIN_PROBE_EVERY;
  private probing = false;
  /** Small split jobs in a row that the worker took no chunk of (awake but descheduled). */
  private idleSplits = 0;
  /** Jobs where the calling thread waited longer for the worker than it worked itself. */
  stalls = 0;

  private constructor(
    private readonly workers: readonly Worker[],
    private readonly control: Int32Array,
    /** false: split every job handed to shouldSplit (tests of the split itself). */
    private readonly adaptive: boolean,
  ) {}

  /**
   * Starts one worker per entry of `scratchPtrs` (each its own packing scratch);
   * `controlPtr` (128 bytes) and the scratch blocks are heap blocks the pool owns.
   */
  static async start(module: WebAssembly.Module, memory: WebAssembly.Memory, controlPtr: number, scratchPtrs: readonly number[], options: { adaptive?: boolean } = {}): Promise<ThreadPool> {
    const control = new Int32Array(memory.buffer, controlPtr, SLOTS);
    control.fill(0);
    const workers = scratchPtrs.map((scratch) => new Worker(WORKER_SOURCE, {
      eval: true,
      // Do not inherit flags such as --input-type=module, which would make the eval'd
      // CommonJS source an ES module; the worker needs no loader (it runs plain JS).
      execArgv: [],
      workerData: { module, memory, control: controlPtr, scratch },
    }));
    const started = workers.map((worker) => new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', (cause) => reject(new TroupeError('engine', `a kernel worker thread failed to start: ${String(cause)}; run with TROUPE_THREADS=1 to use one thread`, { cause })));
    }));
    try {
      await Promise.all(started);
    } catch (error) {
      await Promise.all(workers.map((worker) => worker.terminate()));
      throw error;
    }
    // An idle worker sleeps in Atomics.wait; unref so it never keeps the process alive.
    for (const worker of workers) worker.unref();
    return new ThreadPool(workers, control, options.adaptive ?? true);
  }

  /**
   * Whether a job of `macs` multiply-adds should be split. Results never depend on it.
   * Jobs from BIG_JOB on always are. A smaller job (a decoding matvec: microseconds) is
   * only handed to workers while one is awake (spinning after its last job): waking a sleeping
   * one costs a system call and arrives too late, so it is woken only once per PROBE_EVERY
   * small jobs, after which it stays awake while jobs keep coming. And when the machine is
   * busy the worker is often descheduled in the middle of a chunk, leaving the calling
   * thread to wait a whole time slice (milliseconds): after such a stall, small jobs run on
   * the calling thread alone for a while, longer after each repeated stall; the same
   * after IDLE_SPLITS small jobs in a row of which the worker (spinning, but not running)
   * took nothing.
   */
  shouldSplit(macs: number): boolean {
    if (macs >= BIG_JOB || !this.adaptive) return true;
    if (this.skip > 0) {
      this.skip--;
      return false;
    }
    if (Atomics.load(this.control, AWAKE) > 0) return true;
    if (++this.sinceProbe < this.probeEvery) return false;
    this.sinceProbe = 0;
    this.probing = true;
    return true;
  }

  /** Threads that run a split job: the workers and the calling thread. */
  get threads(): number {
    return this.workers.length + 1;
  }

  /** Runs a chunked matmul on every thread; returns when every chunk is done. */
  runMatmul(exports: unknown, scratch: number, job: MatmulJob): void {
    if (this.disposed) throw new TroupeError('engine', 'these kernels were disposed; create new kernels with createWasmKernels');
    if (job.chunks < 1 || job.chunks > MAX_CHUNKS) throw new TroupeError('invariant', `internal invariant broken: ${job.chunks} matmul chunks`);
    const ctl = this.control;
    const { args, blocking } = job;
    for (let i = 0; i < 7; i++) ctl[ARGS + i] = args[i]!;
    ctl[ARGS + 7] = job.byRows ? 1 : 0;
    ctl[ARGS + 8] = job.chunkSize;
    for (let i = 0; i < 3; i++) ctl[ARGS + 9 + i] = blocking[i]!;
    ctl[ARGS + 12] = job.kind === 'rows' ? 1 : 0;
    Atomics.store(ctl, FINISHED, 0);
    this.job = (this.job + 1) & 0x1ffff;
    Atomics.store(ctl, WORK, (this.job << 14) | (job.chunks << 7));
    this.sequence = (this.sequence + 1) | 0;
    Atomics.store(ctl, SEQ, this.sequence);
    Atomics.notify(ctl, SEQ);
    const start = performance.now();
    const ran = work(exports, ctl, scratch);
    if (this.probing) this.probeEvery = ran < job.chunks ? MIN_PROBE_EVERY : Math.min(2 * this.probeEvery, MAX_PROBE_EVERY);
    this.probing = false;
    if (ran < job.chunks) this.idleSplits = 0;
    else if (this.adaptive && args[3]! * args[4]! * args[5]! < BIG_JOB && ++this.idleSplits >= IDLE_SPLITS) {
      this.idleSplits = 0;
      this.backOff();
    }
    if (Atomics.load(ctl, FINISHED) !== job.chunks) {
      const worked = performance.now() - start;
      for (;;) {
        let finished = Atomics.load(ctl, FINISHED);
        if (finished === job.chunks) break;
        finished = spinWhile(ctl, FINISHED, finished);
        if (finished === job.chunks) break;
        Atomics.wait(ctl, FINISHED, finished);
      }
      const waited = performance.now() - start - worked;
      if (waited > Math.max(worked, 0.05)) {
        this.stalls++;
        this.backOff();
      } else {
        this.backoff = MIN_BACKOFF;
      }
    }
    if (Atomics.load(ctl, ERROR) !== 0) {
      Atomics.store(ctl, ERROR, 0);
      throw new TroupeError('invariant', 'internal invariant broken: a matmul chunk trapped inside matmul_block (an out-of-bounds shape?)');
    }
  }

  /** Small jobs run on the calling thread alone for the next `backoff` calls (then twice as many). */
  private backOff(): void {
    this.skip = this.backoff;
    this.backoff = Math.min(2 * this.backoff, MAX_BACKOFF);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    Atomics.store(this.control, QUIT, 1);
    Atomics.store(this.control, SEQ, (this.sequence + 1) | 0);
    Atomics.notify(this.control, SEQ);
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
