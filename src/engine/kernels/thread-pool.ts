import { Worker } from 'node:worker_threads';
import { TroupeError } from '../../util/errors.js';

/**
 * One helper thread for matmul halves. The worker instantiates the same compiled module on
 * the same shared memory and sleeps in Atomics.wait on a control block in that memory; the
 * calling thread writes the arguments, bumps a sequence number, does its own half, then
 * waits for the worker's "done" number. No message passing per call, so a split costs a
 * few microseconds. Inline worker source (eval) so it runs the same from dist/ and tsx.
 *
 * Control block (Int32 slots): 0 sequence, 1 quit, 2..16 matmul_block arguments (without
 * the scratch pointer, which is the worker's own), 30 error flag, 31 done sequence.
 */
const SLOTS = 32;
const SEQ = 0;
const QUIT = 1;
const ARGS = 2;
const ERROR = 30;
const DONE = 31;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { module, memory, control, scratch } = workerData;
const { exports } = new WebAssembly.Instance(module, { env: { memory } });
const ctl = new Int32Array(memory.buffer, control, ${SLOTS});
parentPort.postMessage('ready');
let seen = 0;
for (;;) {
  Atomics.wait(ctl, ${SEQ}, seen);
  seen = Atomics.load(ctl, ${SEQ});
  if (Atomics.load(ctl, ${QUIT}) === 1) break;
  try {
    const a = ctl.subarray(${ARGS}, ${ARGS + 14});
    exports.matmul_block(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], scratch, a[11], a[12], a[13]);
  } catch (error) {
    Atomics.store(ctl, ${ERROR}, 1);
  }
  Atomics.store(ctl, ${DONE}, seen);
  Atomics.notify(ctl, ${DONE});
}
`;

export class ThreadPool {
  private sequence = 0;
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

  /** Starts matmul_block(args..., workerScratch, KC, MC, NC) on the worker; pair with `wait`. */
  post(args: readonly number[]): void {
    if (this.disposed) throw new TroupeError('engine', 'these kernels were disposed; create new kernels with createWasmKernels');
    for (let i = 0; i < args.length; i++) this.control[ARGS + i] = args[i]!;
    this.sequence = (this.sequence + 1) | 0;
    Atomics.store(this.control, SEQ, this.sequence);
    Atomics.notify(this.control, SEQ);
  }

  /** Blocks until the job from the last `post` is done. */
  wait(): void {
    for (;;) {
      const done = Atomics.load(this.control, DONE);
      if (done === this.sequence) break;
      Atomics.wait(this.control, DONE, done);
    }
    if (Atomics.load(this.control, ERROR) !== 0) {
      Atomics.store(this.control, ERROR, 0);
      throw new TroupeError('invariant', 'internal invariant broken: the kernel worker trapped inside matmul_block (an out-of-bounds shape?)');
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
