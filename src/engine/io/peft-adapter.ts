/**
 * LoRA adapters in the PEFT layout, so an adapter trained by Troupe loads with
 * `PeftModel.from_pretrained(base, dir)` (or vLLM's LoRA support) on the exported base model:
 *
 *   adapter_config.json        peft_type LORA, task_type CAUSAL_LM, r, lora_alpha,
 *                              target_modules, base_model_name_or_path, ...
 *   adapter_model.safetensors  base_model.model.model.layers.{i}.self_attn.q_proj.lora_A.weight
 *                              [r, in] and ...lora_B.weight [out, r] per target module
 *
 * Adapter tensors are keyed by these PEFT names everywhere in Troupe (the engine's
 * LoraAdapter uses them too, see src/engine/model/lora.ts). The update is
 * W + (lora_alpha / r) * B A, or (lora_alpha / sqrt(r)) * B A with `use_rslora` (`loraScaleOf` in lora.ts).
 */
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import type { LlamaConfig } from '../model/llama-config.js';
import { LINEAR_MODULES, linearShape, type LinearModule } from '../model/llama-params.js';
import { loraHeadParameterName, loraParameterName, type LoraConfig } from '../model/lora.js';
import { writeFolderAtomic } from './atomic-write.js';
import { readJsonFile } from './checkpoint.js';
import { encodeSafetensors, readSafetensors } from './safetensors.js';
import { formatShape, type NamedTensor, type TensorMap } from './types.js';

export const ADAPTER_CONFIG_FILE = 'adapter_config.json';
export const ADAPTER_WEIGHTS_FILE = 'adapter_model.safetensors';

/** The engine's LoRA hyper-parameters plus where the base model lives (for PEFT). */
export interface LoraAdapterConfig extends LoraConfig {
  /** A path or hub name; PEFT's PeftModel uses it to find the base model. */
  readonly baseModelNameOrPath: string;
}

export interface PeftAdapter {
  readonly config: LoraAdapterConfig;
  /** `base_model.model.model.layers.{i}.{self_attn|mlp}.{module}.lora_{A|B}.weight`. */
  readonly tensors: TensorMap;
}

/** Every adapter tensor for a base config, by PEFT name, with its shape. */
export function expectedLoraShapes(base: LlamaConfig, lora: LoraConfig): Map<string, number[]> {
  const shapes = new Map<string, number[]>();
  for (let layer = 0; layer < base.num_hidden_layers; layer++) {
    for (const module of lora.targetModules) {
      const [out, inner] = linearShape(base, module);
      shapes.set(loraParameterName(layer, module, 'A'), [lora.r, inner]);
      shapes.set(loraParameterName(layer, module, 'B'), [out, lora.r]);
    }
  }
  if (lora.head === true) {
    shapes.set(loraHeadParameterName('A'), [lora.r, base.hidden_size]);
    shapes.set(loraHeadParameterName('B'), [base.vocab_size, lora.r]);
  }
  return shapes;
}

function checkLoraTensors(base: LlamaConfig, lora: LoraAdapterConfig, tensors: TensorMap, source: string): void {
  const expected = expectedLoraShapes(base, lora);
  for (const [name, shape] of expected) {
    const tensor = tensors.get(name);
    if (tensor === undefined) throw new TroupeError('checkpoint', `${source}: adapter tensor ${name} is missing (expected ${formatShape(shape)})`);
    if (tensor.shape.length !== shape.length || tensor.shape.some((d, i) => d !== shape[i])) {
      throw new TroupeError('checkpoint', `${source}: adapter tensor ${name} has shape ${formatShape(tensor.shape)} but r=${lora.r} and the base model imply ${formatShape(shape)}`);
    }
  }
  for (const name of tensors.keys()) {
    if (!expected.has(name)) throw new TroupeError('checkpoint', `${source}: unexpected adapter tensor ${name}; target_modules are ${lora.targetModules.join(', ')}`);
  }
}

function adapterConfigJson(config: LoraAdapterConfig): Record<string, unknown> {
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: config.baseModelNameOrPath,
    r: config.r,
    lora_alpha: config.alpha,
    lora_dropout: 0.0,
    target_modules: [...config.targetModules, ...(config.head === true ? [HEAD_TARGET] : [])],
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    modules_to_save: null,
    layers_to_transform: null,
    use_rslora: config.rslora === true,
    use_dora: false,
    revision: null,
  };
}

/** PEFT's target name of the output head (Tinker's train_unembed). */
const HEAD_TARGET = 'lm_head';

/** The task types whose adapted model is the causal LM Troupe runs (null: peft saved none). */
const CAUSAL_TASK_TYPES: readonly unknown[] = [undefined, null, 'CAUSAL_LM'];

/**
 * PEFT options that change what the adapter computes in ways Troupe's LoRA does not implement,
 * each with the value that means "off" (peft writes these values when the option is unused)
 * and what the option would need. A file with any other value is refused, naming field and value.
 */
const UNSUPPORTED_OPTIONS: ReadonlyArray<{ key: string; off: (value: unknown) => boolean; needs: string }> = [
  { key: 'use_dora', off: (v) => v === false, needs: 'DoRA (weight-decomposed LoRA); Troupe trains plain LoRA' },
  { key: 'bias', off: (v) => v === 'none', needs: 'trained biases; only "none" is supported' },
  { key: 'lora_bias', off: (v) => v === false, needs: 'a bias on lora_B' },
  { key: 'fan_in_fan_out', off: (v) => v === false, needs: 'transposed (Conv1D) weights, which Llama-family models do not have' },
  { key: 'modules_to_save', off: isEmpty, needs: 'fully trained copies of whole modules' },
  { key: 'layers_to_transform', off: isEmpty, needs: 'LoRA on some layers only; Troupe adapts every layer' },
  { key: 'layers_pattern', off: isEmpty, needs: 'LoRA on some layers only; Troupe adapts every layer' },
  { key: 'rank_pattern', off: isEmpty, needs: 'a different r per module' },
  { key: 'alpha_pattern', off: isEmpty, needs: 'a different lora_alpha per module' },
  { key: 'exclude_modules', off: isEmpty, needs: 'module exclusions; list the modules in target_modules instead' },
  { key: 'layer_replication', off: isEmpty, needs: 'replicated layers' },
  { key: 'trainable_token_indices', off: isEmpty, needs: 'trained embedding rows' },
  { key: 'target_parameters', off: isEmpty, needs: 'LoRA on raw parameters' },
  { key: 'alora_invocation_tokens', off: isEmpty, needs: 'activated LoRA' },
  { key: 'use_qalora', off: (v) => v === false, needs: 'QA-LoRA' },
  { key: 'use_bdlora', off: isEmpty, needs: 'block-diagonal LoRA' },
];

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/**
 * Module names from target_modules: "all-linear" is every projection (peft never adapts the
 * head with it), and a full path such as "model.layers.0.mlp.down_proj" (what peft saves
 * after expanding "all-linear") names its last part. That every layer is covered is checked
 * against the tensors (checkLoraTensors).
 */
function targetModulesOf(targets: unknown): readonly unknown[] | undefined {
  if (targets === 'all-linear') return LINEAR_MODULES;
  return Array.isArray(targets) ? targets.map((t) => (typeof t === 'string' ? t.slice(t.lastIndexOf('.') + 1) : t)) : undefined;
}

/**
 * Parses adapter_config.json as peft writes it: `task_type` null or "CAUSAL_LM", rsLoRA
 * (`use_rslora`: scale alpha / sqrt(r)), `modules_to_save` null or empty. Options Troupe's
 * LoRA does not implement (DoRA, layer patterns, saved modules, ...) are refused naming the
 * field and its value.
 */
export function parseAdapterConfig(json: unknown, source = ADAPTER_CONFIG_FILE): LoraAdapterConfig {
  const bad = (problem: string) => new TroupeError('checkpoint', `${source}: ${problem}`);
  if (typeof json !== 'object' || json === null) throw bad('not a JSON object');
  const raw = json as Record<string, unknown>;
  if (raw.peft_type !== 'LORA') throw bad(`peft_type ${JSON.stringify(raw.peft_type)} is not supported; only "LORA"`);
  if (!CAUSAL_TASK_TYPES.includes(raw.task_type)) {
    throw bad(`task_type ${JSON.stringify(raw.task_type)} is not supported; Troupe runs causal language models (task_type "CAUSAL_LM" or null)`);
  }
  if (!Number.isInteger(raw.r) || (raw.r as number) <= 0) throw bad(`r must be a positive integer, got ${JSON.stringify(raw.r)}`);
  if (typeof raw.lora_alpha !== 'number' || !(raw.lora_alpha > 0)) throw bad(`lora_alpha must be a positive number, got ${JSON.stringify(raw.lora_alpha)}`);
  const head = Array.isArray(raw.target_modules) && raw.target_modules.includes(HEAD_TARGET);
  const targets = targetModulesOf(Array.isArray(raw.target_modules) ? raw.target_modules.filter((t) => t !== HEAD_TARGET) : raw.target_modules);
  const allowed: readonly string[] = LINEAR_MODULES;
  if (targets === undefined || (targets.length === 0 && !head) || !targets.every((t) => allowed.includes(t as string))) {
    throw bad(`target_modules must be "all-linear" or a non-empty list of ${allowed.join(', ')} (and ${HEAD_TARGET}); got ${JSON.stringify(raw.target_modules)}`);
  }
  for (const { key, off, needs } of UNSUPPORTED_OPTIONS) {
    if (raw[key] !== undefined && !off(raw[key])) throw bad(`${key}: ${JSON.stringify(raw[key])} is not supported (it needs ${needs}); re-train or re-save the adapter without it`);
  }
  if (raw.use_rslora !== undefined && typeof raw.use_rslora !== 'boolean') throw bad(`use_rslora must be true or false, got ${JSON.stringify(raw.use_rslora)}`);
  return {
    r: raw.r as number,
    alpha: raw.lora_alpha,
    targetModules: [...new Set(targets as LinearModule[])],
    ...(raw.use_rslora === true ? { rslora: true } : {}),
    ...(head ? { head: true } : {}),
    baseModelNameOrPath: typeof raw.base_model_name_or_path === 'string' ? raw.base_model_name_or_path : '',
  };
}

/**
 * The files of an adapter folder, as bytes (validated against the base model's config first;
 * `source` names the adapter in errors). saveLoraAdapter writes them; the Tinker server's
 * checkpoint archive streams them.
 *
 *   for (const { name, bytes } of loraAdapterFiles(adapter, model.config, 'my adapter')) ...
 */
export function loraAdapterFiles(adapter: PeftAdapter, base: LlamaConfig, source: string): Array<{ name: string; bytes: Uint8Array }> {
  checkLoraTensors(base, adapter.config, adapter.tensors, source);
  return [
    { name: ADAPTER_CONFIG_FILE, bytes: new TextEncoder().encode(`${JSON.stringify(adapterConfigJson(adapter.config), null, 2)}\n`) },
    { name: ADAPTER_WEIGHTS_FILE, bytes: encodeSafetensors(adapter.tensors, { format: 'pt' }) },
  ];
}

/** Writes an adapter folder atomically (validated against the base model's config first). */
export function saveLoraAdapter(dir: string, adapter: PeftAdapter, base: LlamaConfig, options: { overwrite?: boolean } = {}): void {
  const files = loraAdapterFiles(adapter, base, dir);
  writeFolderAtomic(dir, files.map(({ name, bytes }) => ({ name, contents: () => bytes })), options);
}

/** Loads a PEFT LoRA adapter folder and checks it fits `base`. */
export function loadLoraAdapter(dir: string, base: LlamaConfig): PeftAdapter {
  const configPath = join(dir, ADAPTER_CONFIG_FILE);
  const config = parseAdapterConfig(readJsonFile(configPath), configPath);
  const weightsPath = join(dir, ADAPTER_WEIGHTS_FILE);
  const tensors = new Map<string, NamedTensor>();
  for (const [name, tensor] of readSafetensors(weightsPath).tensors) {
    // PEFT drops the adapter name when saving; tolerate files that kept ".default".
    tensors.set(name.replace(/\.(lora_[AB])\.default\.weight$/, '.$1.weight'), tensor);
  }
  checkLoraTensors(base, config, tensors, weightsPath);
  return { config, tensors };
}
