import { TroupeError } from '../../util/errors.js';
import { Rng } from '../../util/rng.js';
import type { Kernels } from '../kernels/types.js';
import { Tensor } from '../tensor.js';
import type { LlamaConfig } from './llama-config.js';
import { LINEAR_MODULES, linearShape, modulePath, type LinearModule } from './llama-params.js';

/** What PEFT's LoraConfig calls r, lora_alpha and target_modules. */
export interface LoraConfig {
  readonly r: number;
  readonly alpha: number;
  readonly targetModules: readonly LinearModule[];
  /** PEFT's `use_rslora`: scale alpha / sqrt(r) instead of alpha / r (rank-stabilised LoRA). */
  readonly rslora?: boolean;
  /** Also a LoRA pair on the output head (PEFT target `lm_head`; Tinker's train_unembed), tied embeddings or not. */
  readonly head?: boolean;
}

/** The factor on B A x: alpha / r, or alpha / sqrt(r) for rsLoRA (as PEFT computes it). */
export function loraScaleOf(config: LoraConfig): number {
  return config.rslora === true ? config.alpha / Math.sqrt(config.r) : config.alpha / config.r;
}

/** PEFT's names of the output head's pair: base_model.model.lm_head.lora_A.weight. */
export function loraHeadParameterName(which: 'A' | 'B'): string {
  return `base_model.model.lm_head.lora_${which}.weight`;
}

/** PEFT's tensor name: base_model.model.model.layers.{i}.self_attn.q_proj.lora_A.weight. */
export function loraParameterName(layer: number, module: LinearModule, which: 'A' | 'B'): string {
  return `base_model.model.model.layers.${layer}.${modulePath(module)}.lora_${which}.weight`;
}

/**
 * One named low-rank adapter on a frozen base: W x + scale * B (A x) for each target
 * module (scale alpha / r, or alpha / sqrt(r) with rsLoRA), A [r, in] ~ uniform(+-1/sqrt(in))
 * (PEFT's kaiming-uniform default) and B [out, r] zero, so a fresh adapter leaves the model unchanged. Parameters use PEFT names.
 * A's values depend only on (seed, layer, module), not on the adapter's name: a Tinker service
 * given the same seed (LoraConfig.seed) starts from the same adapter as the embedded engine.
 */
export class LoraAdapter {
  readonly name: string;
  readonly config: LoraConfig;
  /** The factor on B A x (loraScaleOf). */
  readonly scale: number;
  readonly parameters: Map<string, Tensor>;
  private readonly targets: ReadonlySet<LinearModule>;

  private constructor(name: string, config: LoraConfig, parameters: Map<string, Tensor>) {
    this.name = name;
    this.config = config;
    this.scale = loraScaleOf(config);
    this.parameters = parameters;
    this.targets = new Set(config.targetModules);
  }

  static create(kernels: Kernels, model: LlamaConfig, options: { name: string; config: LoraConfig; seed: number }): LoraAdapter {
    const { name, config, seed } = options;
    validateLoraConfig(config);
    const params = new Map<string, Tensor>();
    for (let layer = 0; layer < model.num_hidden_layers; layer++) {
      for (const module of config.targetModules) {
        const [out, inF] = linearShape(model, module);
        const a = Tensor.parameter(kernels, [config.r, inF]);
        const rng = Rng.derive(seed, 'lora', layer, module);
        const bound = 1 / Math.sqrt(inF);
        for (let i = 0; i < a.size; i++) a.data[i] = (rng.next() * 2 - 1) * bound;
        params.set(loraParameterName(layer, module, 'A'), a);
        params.set(loraParameterName(layer, module, 'B'), Tensor.parameter(kernels, [out, config.r]));
      }
    }
    if (config.head) {
      // Like any target: A ~ uniform(+-1/sqrt(hidden)) from its own stream, B zero. The head's
      // input is the final-normed hidden state, its output the logits (tied or not: the pair is
      // the adapter's own, the embeddings are never touched).
      const a = Tensor.parameter(kernels, [config.r, model.hidden_size]);
      const rng = Rng.derive(seed, 'lora', 'lm_head');
      const bound = 1 / Math.sqrt(model.hidden_size);
      for (let i = 0; i < a.size; i++) a.data[i] = (rng.next() * 2 - 1) * bound;
      params.set(loraHeadParameterName('A'), a);
      params.set(loraHeadParameterName('B'), Tensor.parameter(kernels, [model.vocab_size, config.r]));
    }
    return new LoraAdapter(name, config, params);
  }

  /** A [r, in] and B [out, r] of one module, or undefined when the module is not a target. */
  weights(layer: number, module: LinearModule): { a: Tensor; b: Tensor } | undefined {
    if (!this.targets.has(module)) return undefined;
    return {
      a: this.parameters.get(loraParameterName(layer, module, 'A'))!,
      b: this.parameters.get(loraParameterName(layer, module, 'B'))!,
    };
  }

  /** The output head's A [r, hidden] and B [vocab, r], or undefined when the head is not a target. */
  headWeights(): { a: Tensor; b: Tensor } | undefined {
    if (!this.config.head) return undefined;
    return { a: this.parameters.get(loraHeadParameterName('A'))!, b: this.parameters.get(loraHeadParameterName('B'))! };
  }

  free(kernels: Kernels): void {
    for (const t of this.parameters.values()) t.free(kernels);
  }
}

function validateLoraConfig(config: LoraConfig): void {
  if (!Number.isInteger(config.r) || config.r <= 0) {
    throw new TroupeError('config', `LoRA rank r must be a positive integer, got ${config.r}`);
  }
  if (!(config.alpha > 0)) throw new TroupeError('config', `LoRA alpha must be positive, got ${config.alpha}`);
  if (config.targetModules.length === 0 && !config.head) {
    throw new TroupeError('config', `LoRA targetModules is empty; choose among ${LINEAR_MODULES.join(', ')}`);
  }
  for (const m of config.targetModules) {
    if (!LINEAR_MODULES.includes(m)) {
      throw new TroupeError('config', `unknown LoRA target module '${m}'; allowed: ${LINEAR_MODULES.join(', ')}`);
    }
  }
}
