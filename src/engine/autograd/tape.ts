import { TroupeError } from '../../util/errors.js';
import type { Kernels } from '../kernels/types.js';
import { Tensor, shapeSize } from '../tensor.js';
import { BufferPool } from './buffer-pool.js';

/**
 * Reverse-mode autograd over one step. Ops (see the other files of this folder) allocate
 * their outputs and saved state through the tape and register a backward closure; running
 * `backward` plays the closures in reverse order. The tape owns everything it allocated and
 * frees it in `dispose()`, which is what keeps a training step's memory bounded: nothing of
 * a step outlives the step except parameter gradients.
 *
 *   const tape = new Tape(kernels);
 *   const logits = model.forward(tape, tokens_B_T);
 *   const loss = mean(tape, ...);
 *   tape.backward(loss);          // parameter .grad buffers now hold d(loss)/d(param)
 *   tape.dispose();
 *
 * `new Tape(kernels, { grad: false })` records nothing (inference): ops only compute.
 * `new Tape(kernels, { pool })` recycles arrays through a BufferPool shared by successive
 * tapes (a training loop): without one, the tape still reuses arrays within its own step.
 */
export class Tape {
  readonly kernels: Kernels;
  /** False for inference tapes: no backward closures are kept. */
  readonly recording: boolean;
  private readonly nodes: Array<{ outputs: readonly Tensor[]; backward: () => void }> = [];
  private readonly ownedArrays: Float32Array[] = [];
  private readonly ownedTensors = new Set<Tensor>();
  private readonly pool: BufferPool;
  private readonly privatePool: boolean;
  private state: 'open' | 'backward-done' | 'disposed' = 'open';

  constructor(kernels: Kernels, options: { grad?: boolean; pool?: BufferPool } = {}) {
    this.kernels = kernels;
    this.recording = options.grad ?? true;
    this.privatePool = !options.pool;
    this.pool = options.pool ?? new BufferPool(kernels);
  }

  /** A zeroed intermediate tensor owned by the tape; it needs a gradient if any input does. */
  tensor(shape: readonly number[], inputs: readonly Tensor[] = []): Tensor {
    return this.makeTensor(shape, inputs, true);
  }

  /** Like `tensor` but with unspecified contents: for op outputs that are fully overwritten. */
  output(shape: readonly number[], inputs: readonly Tensor[] = []): Tensor {
    return this.makeTensor(shape, inputs, false);
  }

  /** A zeroed array owned by the tape until dispose (saved state of an op). */
  alloc(length: number): Float32Array {
    return this.keep(this.pool.take(length, true));
  }

  /** Like `alloc` but with unspecified contents (the op overwrites it completely). */
  scratch(length: number): Float32Array {
    return this.keep(this.pool.take(length, false));
  }

  /** A temporary for one op call (e.g. inside a backward closure); hand it back with `release`. */
  temp(length: number, zero = false): Float32Array {
    return this.pool.take(length, zero);
  }

  release(array: Float32Array): void {
    this.pool.give(array);
  }

  /** Wraps caller data (e.g. token-derived values) as a tape-owned constant tensor. */
  constant(shape: readonly number[], values: ArrayLike<number>): Tensor {
    const t = this.tensor(shape);
    t.data.set(values);
    return t;
  }

  /**
   * Registers the backward closure of the op that produced `outputs`. The closure runs only
   * if some output received a gradient; it reads `output.grad` and accumulates into its
   * inputs through `gradOf`.
   */
  onBackward(outputs: Tensor | readonly Tensor[], backward: () => void): void {
    const list = Array.isArray(outputs) ? (outputs as readonly Tensor[]) : [outputs as Tensor];
    if (!this.recording || !list.some((t) => t.requiresGrad)) return;
    this.nodes.push({ outputs: list, backward });
  }

  /** The gradient buffer of `t`, allocated (zeroed) on first use. */
  gradOf(t: Tensor): Float32Array {
    // Leaves (parameters) keep their gradient across steps, so it must not come from the pool.
    if (!t.grad) t.grad = this.ownedTensors.has(t) ? this.pool.take(t.size, true) : this.kernels.alloc(t.size);
    return t.grad;
  }

  /**
   * Where an op's backward writes the gradient of input `t` in one go. While `t` is an
   * intermediate of this tape that has no gradient yet, this hands out an array with
   * unspecified contents (`accumulate: false`): the op must overwrite every element, which
   * saves zero-filling the array and reading it back. Otherwise it is `gradOf(t)` and the op
   * adds into it. (Leaves such as parameters always accumulate.)
   */
  gradSink(t: Tensor): { grad: Float32Array; accumulate: boolean } {
    if (t.grad || !this.ownedTensors.has(t)) return { grad: this.gradOf(t), accumulate: true };
    t.grad = this.pool.take(t.size, false);
    return { grad: t.grad, accumulate: false };
  }

  /**
   * Hands the gradient of `from` (an op's output, inside that op's backward) to its input
   * `to` when `to` has no gradient yet and d(to) = d(from) elementwise, or any op's backward
   * transforms it in place (residual adds, RoPE): no copy, no zero-fill. Returns false, and
   * changes nothing, when `to` already has a gradient (or is a leaf): then accumulate into
   * `gradOf(to)` as usual. `from.grad` is gone afterwards, so call this last.
   */
  moveGrad(from: Tensor, to: Tensor): boolean {
    if (to.grad || !from.grad || from.size !== to.size || !this.ownedTensors.has(to) || !this.ownedTensors.has(from)) return false;
    to.grad = from.grad;
    from.grad = null;
    return true;
  }

  /**
   * Back-propagates from `root`. `gradRoot` is d(loss)/d(root); omit it for a scalar root
   * (then it is 1). A learner whose loss is a plain function of per-token logprobs can pass
   * its own d(loss)/d(logprobs) here instead of building the loss from ops.
   * Gradients accumulate into parameter `.grad` (call zeroGrad between optimizer steps, not
   * between micro-batches). Intermediate gradients are freed as soon as they are consumed.
   */
  backward(root: Tensor, gradRoot?: ArrayLike<number>): void {
    this.assertOpen();
    if (!this.recording) {
      throw new TroupeError('engine', 'backward on a tape created with { grad: false }; create the tape with new Tape(kernels) to train');
    }
    if (!gradRoot && root.size !== 1) {
      throw new TroupeError('engine', `backward from a tensor of shape [${root.shape.join(', ')}] needs gradRoot (one value per element); reduce it to a scalar first or pass gradRoot`);
    }
    if (gradRoot && gradRoot.length !== root.size) {
      throw new TroupeError('engine', `backward: gradRoot has ${gradRoot.length} values but the root has ${root.size} elements`);
    }
    if (!root.requiresGrad) return;
    const g = this.gradOf(root);
    if (gradRoot) for (let i = 0; i < g.length; i++) g[i] = g[i]! + gradRoot[i]!;
    else g[0] = g[0]! + 1;
    for (let i = this.nodes.length - 1; i >= 0; i--) {
      const node = this.nodes[i]!;
      if (node.outputs.some((t) => t.grad)) node.backward();
      // Every consumer of these outputs ran already (reverse order), so their gradients are done.
      for (const t of node.outputs) this.releaseGrad(t);
    }
    this.nodes.length = 0;
    this.state = 'backward-done';
  }

  /** Frees every intermediate of the step. Tensors created by this tape become invalid. */
  dispose(): void {
    if (this.state === 'disposed') return;
    for (const t of this.ownedTensors) this.releaseGrad(t);
    for (const array of this.ownedArrays) this.pool.give(array);
    if (this.privatePool) this.pool.clear();
    this.ownedArrays.length = 0;
    this.ownedTensors.clear();
    this.nodes.length = 0;
    this.state = 'disposed';
  }

  private releaseGrad(t: Tensor): void {
    if (t.grad && this.ownedTensors.has(t)) {
      this.pool.give(t.grad);
      t.grad = null;
    }
  }

  private makeTensor(shape: readonly number[], inputs: readonly Tensor[], zero: boolean): Tensor {
    this.assertOpen();
    const data = this.keep(this.pool.take(shapeSize(shape), zero));
    const t = new Tensor(shape, data, this.recording && inputs.some((x) => x.requiresGrad));
    this.ownedTensors.add(t);
    return t;
  }

  private keep(array: Float32Array): Float32Array {
    this.assertOpen();
    this.ownedArrays.push(array);
    return array;
  }

  private assertOpen(): void {
    if (this.state === 'disposed') throw new TroupeError('engine', 'this tape was disposed; create a new Tape for each step');
    if (this.state === 'backward-done') throw new TroupeError('engine', 'this tape already ran backward; create a new Tape for the next step');
  }
}
