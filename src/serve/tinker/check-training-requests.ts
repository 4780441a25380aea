/**
 * The JSON training requests of the Tinker API (create_model, optim_step, save_weights,
 * save_weights_for_sampler, load_weights), checked field by field before anything is queued:
 * a typed 400 naming the field, never a value that reaches the engine and becomes NaN.
 *
 *   const adam = checkAdamParams(body);          // finite, beta in [0, 1), eps > 0, ...
 *   const name = checkpointName(body, 'path');   // [A-Za-z0-9._-], at most 128 characters
 */
import type { LlamaConfig } from '../../engine/model/llama-config.js';
import { linearShape } from '../../engine/model/llama-params.js';
import { DEFAULT_ADAM, TINKER_ATTENTION_MODULES, TINKER_MLP_MODULES, type AdamParams, type LoraConfigWire } from '../../tinker/types.js';
import { LIMIT_FLAGS, type TinkerLimits } from './limits.js';
import { bool, num, object, int, optionalInt, describe, type Body } from './request-fields.js';
import { badField } from './tinker-api-error.js';

/** Longest checkpoint name save_weights accepts. */
export const MAX_CHECKPOINT_NAME = 128;
const CHECKPOINT_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
/** Longest ttl_seconds: ten years. */
const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;

/** create_model's lora_config; the rank is bounded by the server's limit. */
export function checkLoraConfig(body: Body, limits: TinkerLimits): LoraConfigWire {
  const lora = object(body, 'lora_config', 'lora_config');
  const rank = int(lora, 'lora_config.rank', 'rank', { min: 1, max: limits.maxLoraRank, maxIs: `this server's ${LIMIT_FLAGS.maxLoraRank}`, fallback: 32 });
  const seed = optionalInt(lora, 'lora_config.seed', 'seed', { min: 0, max: Number.MAX_SAFE_INTEGER });
  const config: LoraConfigWire = {
    rank,
    ...(seed === undefined ? {} : { seed }),
    train_unembed: bool(lora, 'lora_config.train_unembed', 'train_unembed', true),
    train_mlp: bool(lora, 'lora_config.train_mlp', 'train_mlp', true),
    train_attn: bool(lora, 'lora_config.train_attn', 'train_attn', true),
  };
  if (!config.train_attn && !config.train_mlp && !config.train_unembed) throw badField('lora_config', 'train_attn, train_mlp and train_unembed are all false, so the adapter would train nothing; enable at least one');
  return config;
}

/** Bytes one adapter of this shape holds: its A and B, and (training) their gradients and two Adam moments. */
export function adapterBytes(config: LlamaConfig, lora: LoraConfigWire, training: boolean): number {
  const modules = [...(lora.train_attn === false ? [] : TINKER_ATTENTION_MODULES), ...(lora.train_mlp === false ? [] : TINKER_MLP_MODULES)];
  let values = modules.reduce((sum, m) => sum + lora.rank * linearShape(config, m).reduce((a, b) => a + b, 0), 0) * config.num_hidden_layers;
  if (lora.train_unembed) values += lora.rank * (config.hidden_size + config.vocab_size);
  return values * 4 * (training ? 4 : 1);
}

/** optim_step's adam_params: every field finite and in the range where Adam is defined. */
export function checkAdamParams(body: Body): AdamParams {
  const p = object(body, 'adam_params', 'adam_params');
  const field = (key: keyof AdamParams) => `adam_params.${key}`;
  const learning_rate = num(p, field('learning_rate'), 'learning_rate', { min: 0, max: 1, fallback: DEFAULT_ADAM.learning_rate });
  const beta1 = num(p, field('beta1'), 'beta1', { min: 0, below: 1, fallback: DEFAULT_ADAM.beta1 });
  const beta2 = num(p, field('beta2'), 'beta2', { min: 0, below: 1, fallback: DEFAULT_ADAM.beta2 });
  const eps = num(p, field('eps'), 'eps', { above: 0, max: 1, fallback: DEFAULT_ADAM.eps });
  const weight_decay = num(p, field('weight_decay'), 'weight_decay', { min: 0, fallback: DEFAULT_ADAM.weight_decay });
  const grad_clip_norm = num(p, field('grad_clip_norm'), 'grad_clip_norm', { min: 0, fallback: DEFAULT_ADAM.grad_clip_norm });
  // Decoupled decay multiplies each weight by 1 - lr * wd: at >= 1 it zeroes or flips every weight.
  if (learning_rate * weight_decay >= 1) throw badField(field('weight_decay'), `${weight_decay} with learning_rate ${learning_rate} would scale every weight by 1 - lr * weight_decay = ${1 - learning_rate * weight_decay}; keep lr * weight_decay < 1`);
  return { learning_rate, beta1, beta2, eps, weight_decay, grad_clip_norm };
}

/** A checkpoint name (save_weights `path`): letters, digits, `.`, `_`, `-`; at most 128 characters. */
export function checkpointName(body: Body, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badField(key, `must be a checkpoint name (a string), got ${describe(value)}`);
  if (value.length === 0 || value.length > MAX_CHECKPOINT_NAME) throw badField(key, `must be 1 to ${MAX_CHECKPOINT_NAME} characters long, got ${value.length}`);
  if (!CHECKPOINT_NAME.test(value)) throw badField(key, `${describe(value)} may use only letters, digits, '.', '_' and '-' (not first: '.' or '-'); it becomes the last part of a tinker:// path`);
  return value;
}

/** save_weights' ttl_seconds: absent/null (kept until deleted) or a positive whole number of seconds. */
export function ttlSeconds(body: Body): number | undefined {
  return optionalInt(body, 'ttl_seconds', 'ttl_seconds', { min: 1, max: MAX_TTL_SECONDS });
}
