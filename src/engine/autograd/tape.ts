import { TroupeError } from '../../util/errors.js';
import type { Kernels } from '../kernels/types.js';
import { Tensor, shapeSize } from '../tensor.js';

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
 */
export class Tape {
  readonly kernels: Kernels;
  /** False for inference tapes: no backward closures are kept. */
  readonly recording: boolean;
  private readonly nodes: Array<{ outputs: readonly Tensor[]; backward: () => void }> = [];
  private readonly ownedArrays: Float32Array[] = [];
  private readonly ownedTensors = new Set<Tensor>();
  private state: 'open' | 'backward-done' | 'disposed' = 'open';

  constructor(kernels: Kernels, options: { grad?: boolean } = {}) {
    this.kernels = kernels;
    this.recording = options.grad ?? true;
  }

  /** A zeroed intermediate tensor owned by the tape; it needs a gradient if any input does. */
  tensor(shape: readonly number[], inputs: readonly Tensor[] = []): Tensor {
    this.assertOpen();
    const t = new Tensor(shape, this.alloc(shapeSize(shape)), this.recording && inputs.some((x) => x.requiresGrad));
    this.ownedTensors.add(t);
    return t;
  }

  /** A zeroed scratch array owned by the tape (saved state of an op, temporaries). */
  alloc(length: number): Float32Array {
    this.assertOpen();
    const array = this.kernels.alloc(length);
    this.ownedArrays.push(array);
    return array;
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
    if (!t.grad) t.grad = this.kernels.alloc(t.size);
    return t.grad;
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
    for (const array of this.ownedArrays) this.kernels.free(array);
    this.ownedArrays.length = 0;
    this.ownedTensors.clear();
    this.nodes.length = 0;
    this.state = 'disposed';
  }

  private releaseGrad(t: Tensor): void {
    if (t.grad && this.ownedTensors.has(t)) {
      this.kernels.free(t.grad);
      t.grad = null;
    }
  }

  private assertOpen(): void {
    if (this.state === 'disposed') throw new TroupeError('engine', 'this tape was disposed; create a new Tape for each step');
    if (this.state === 'backward-done') throw new TroupeError('engine', 'this tape already ran backward; create a new Tape for the next step');
  }
}
