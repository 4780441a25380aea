import { TroupeError } from '../../util/errors.js';
import type { Kernels } from '../kernels/types.js';
import type { Tensor } from '../tensor.js';

export interface AdamWOptions {
  readonly beta1?: number;
  readonly beta2?: number;
  readonly eps?: number;
  /** Decoupled weight decay; applied only where `decay(name, tensor)` says (default: matrices). */
  readonly weightDecay?: number;
  /** Which parameters decay. Default: tensors of rank >= 2 (not norms), as is usual for LLMs. */
  readonly decay?: (name: string, tensor: Tensor) => boolean;
}

/**
 * Optimizer state as plain data for resumable checkpoints: the step count and, per
 * parameter, its first and second moments named `${name}.exp_avg` / `${name}.exp_avg_sq`
 * (PyTorch's state names), ready to write as safetensors.
 */
export interface AdamWState {
  readonly step: number;
  readonly tensors: ReadonlyMap<string, Float32Array>;
}

/**
 * AdamW over named parameters, through `kernels.adamw`. Gradients are read from each
 * parameter's `.grad`; the caller accumulates them over micro-batches (each backward adds),
 * optionally clips (clipGradNorm), calls `step(lr)`, then `zeroGrad()`.
 *
 *   const opt = new AdamW(kernels, model.trainableParameters(), { weightDecay: 0.1 });
 *   for (const micro of microBatches) { ...; tape.backward(loss_scaled_by_1_over_M); }
 *   clipGradNorm(kernels, opt.parameters.values(), 1.0);
 *   opt.step(cosineLr({ step: opt.stepCount, ... }));
 *   opt.zeroGrad();
 */
export class AdamW {
  readonly parameters: ReadonlyMap<string, Tensor>;
  private readonly kernels: Kernels;
  private readonly beta1: number;
  private readonly beta2: number;
  private readonly eps: number;
  private readonly weightDecay: number;
  private readonly decays: ReadonlyMap<string, boolean>;
  private readonly m = new Map<string, Float32Array>();
  private readonly v = new Map<string, Float32Array>();
  private steps = 0;

  constructor(kernels: Kernels, parameters: ReadonlyMap<string, Tensor>, options: AdamWOptions = {}) {
    this.kernels = kernels;
    this.parameters = parameters;
    this.beta1 = options.beta1 ?? 0.9;
    this.beta2 = options.beta2 ?? 0.999;
    this.eps = options.eps ?? 1e-8;
    this.weightDecay = options.weightDecay ?? 0;
    const decay = options.decay ?? ((_name: string, t: Tensor) => t.shape.length >= 2);
    this.decays = new Map([...parameters].map(([name, t]) => [name, decay(name, t)]));
    for (const [name, t] of parameters) {
      this.m.set(name, kernels.alloc(t.size));
      this.v.set(name, kernels.alloc(t.size));
    }
  }

  /** Number of steps taken so far (the next step is stepCount + 1). */
  get stepCount(): number {
    return this.steps;
  }

  /** One update of every parameter that has a gradient, at learning rate `lr`. */
  step(lr: number): void {
    if (!(lr >= 0) || !Number.isFinite(lr)) throw new TroupeError('config', `learning rate must be a finite number >= 0, got ${lr}`);
    this.steps++;
    for (const [name, t] of this.parameters) {
      if (!t.grad) continue;
      this.kernels.adamw(t.data, t.grad, this.m.get(name)!, this.v.get(name)!, {
        lr,
        beta1: this.beta1,
        beta2: this.beta2,
        eps: this.eps,
        weightDecay: this.decays.get(name) ? this.weightDecay : 0,
        step: this.steps,
      });
    }
  }

  zeroGrad(): void {
    for (const t of this.parameters.values()) t.grad?.fill(0);
  }

  exportState(): AdamWState {
    const tensors = new Map<string, Float32Array>();
    for (const name of this.parameters.keys()) {
      tensors.set(`${name}.exp_avg`, Float32Array.from(this.m.get(name)!));
      tensors.set(`${name}.exp_avg_sq`, Float32Array.from(this.v.get(name)!));
    }
    return { step: this.steps, tensors };
  }

  importState(state: AdamWState): void {
    for (const [name, t] of this.parameters) {
      for (const [suffix, target] of [['exp_avg', this.m], ['exp_avg_sq', this.v]] as const) {
        const saved = state.tensors.get(`${name}.${suffix}`);
        if (!saved || saved.length !== t.size) {
          throw new TroupeError('checkpoint', `optimizer state '${name}.${suffix}' is ${saved ? `of length ${saved.length}, expected ${t.size}` : 'missing'}; the checkpoint does not match this model`);
        }
        target.get(name)!.set(saved);
      }
    }
    this.steps = state.step;
  }

  dispose(): void {
    for (const a of [...this.m.values(), ...this.v.values()]) this.kernels.free(a);
    this.m.clear();
    this.v.clear();
  }
}
