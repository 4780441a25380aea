/**
 * The JSON training requests of the Tinker API (create_model, optim_step, save_weights,
 * save_weights_for_sampler, load_weights) as zod schemas, checked before anything is queued:
 * a typed 400 naming the field, never a value that reaches the engine and becomes NaN.
 *
 *   const adam = checkAdamParams(body);          // finite, beta in [0, 1), eps > 0, ...
 *   const name = checkpointName(body, 'path');   // [A-Za-z0-9._-], at most 128 characters
 */
import { z } from 'zod';
import type { LlamaConfig } from '../../engine/model/llama-config.js';
import { linearShape } from '../../engine/model/llama-params.js';
import { DEFAULT_ADAM, TINKER_ATTENTION_MODULES, TINKER_MLP_MODULES, type AdamParams, type LoraConfigWire } from '../../tinker/types.js';
import { LIMIT_FLAGS, type TinkerLimits } from './limits.js';
import { describe, finite, flag, integer, optional, parseTinker, section, withDefault, type Body } from './request-fields.js';

/** Longest checkpoint name save_weights accepts. */
export const MAX_CHECKPOINT_NAME = 128;
const CHECKPOINT_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
/** Longest ttl_seconds: ten years. */
const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;

/** create_model's lora_config; the rank is bounded by the server's limit. */
function loraConfigSchema(limits: TinkerLimits) {
  return section({
    rank: withDefault(integer({ min: 1, max: limits.maxLoraRank, maxIs: `this server's ${LIMIT_FLAGS.maxLoraRank}` }), 32),
    seed: optional(integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
    train_unembed: withDefault(flag, true),
    train_mlp: withDefault(flag, true),
    train_attn: withDefault(flag, true),
  }).refine((c) => c.train_attn || c.train_mlp || c.train_unembed, {
    message: 'train_attn, train_mlp and train_unembed are all false, so the adapter would train nothing; enable at least one',
  });
}

const loraBodies = new WeakMap<TinkerLimits, ReturnType<typeof loraBodySchema>>();
function loraBodySchema(limits: TinkerLimits) {
  return z.looseObject({ lora_config: loraConfigSchema(limits) });
}

export function checkLoraConfig(body: Body, limits: TinkerLimits): LoraConfigWire {
  let schema = loraBodies.get(limits);
  if (!schema) loraBodies.set(limits, (schema = loraBodySchema(limits)));
  const { seed, ...config } = parseTinker(schema, body).lora_config;
  return { ...config, ...(seed === undefined ? {} : { seed }) };
}

/** Bytes one adapter of this shape holds: its A and B, and (training) their gradients and two Adam moments. */
export function adapterBytes(config: LlamaConfig, lora: LoraConfigWire, training: boolean): number {
  const modules = [...(lora.train_attn === false ? [] : TINKER_ATTENTION_MODULES), ...(lora.train_mlp === false ? [] : TINKER_MLP_MODULES)];
  let values = modules.reduce((sum, m) => sum + lora.rank * linearShape(config, m).reduce((a, b) => a + b, 0), 0) * config.num_hidden_layers;
  if (lora.train_unembed) values += lora.rank * (config.hidden_size + config.vocab_size);
  return values * 4 * (training ? 4 : 1);
}

/** optim_step's adam_params: every field finite and in the range where Adam is defined. */
const adamBody = z.looseObject({
  adam_params: section({
    learning_rate: withDefault(finite({ min: 0, max: 1 }), DEFAULT_ADAM.learning_rate),
    beta1: withDefault(finite({ min: 0, below: 1 }), DEFAULT_ADAM.beta1),
    beta2: withDefault(finite({ min: 0, below: 1 }), DEFAULT_ADAM.beta2),
    eps: withDefault(finite({ above: 0, max: 1 }), DEFAULT_ADAM.eps),
    weight_decay: withDefault(finite({ min: 0 }), DEFAULT_ADAM.weight_decay),
    grad_clip_norm: withDefault(finite({ min: 0 }), DEFAULT_ADAM.grad_clip_norm),
  }).superRefine(({ learning_rate: lr, weight_decay: wd }, ctx) => {
    // Decoupled decay multiplies each weight by 1 - lr * wd: at >= 1 it zeroes or flips every weight.
    if (lr * wd >= 1) {
      ctx.addIssue({ code: 'custom', path: ['weight_decay'], message: `${wd} with learning_rate ${lr} would scale every weight by 1 - lr * weight_decay = ${1 - lr * wd}; keep lr * weight_decay < 1` });
    }
  }),
});

export function checkAdamParams(body: Body): AdamParams {
  return parseTinker(adamBody, body).adam_params;
}

/** A checkpoint name (save_weights `path`): letters, digits, `.`, `_`, `-`; at most 128 characters. */
const name = z
  .string({ error: (issue) => `must be a checkpoint name (a string), got ${describe(issue.input)}` })
  .refine((value) => value.length > 0 && value.length <= MAX_CHECKPOINT_NAME, { error: (issue) => `must be 1 to ${MAX_CHECKPOINT_NAME} characters long, got ${(issue.input as string).length}`, abort: true })
  .refine((value) => CHECKPOINT_NAME.test(value), { error: (issue) => `${describe(issue.input)} may use only letters, digits, '.', '_' and '-' (not first: '.' or '-'); it becomes the last part of a tinker:// path` });

const nameBodies = new Map<string, z.ZodType<{ [key: string]: string | undefined }>>();

export function checkpointName(body: Body, key: string): string | undefined {
  let schema = nameBodies.get(key);
  if (!schema) nameBodies.set(key, (schema = z.looseObject({ [key]: optional(name) })));
  return parseTinker(schema, body)[key];
}

/** save_weights' ttl_seconds: absent/null (kept until deleted) or a positive whole number of seconds. */
export const ttlField = optional(integer({ min: 1, max: MAX_TTL_SECONDS }));
const ttlBody = z.looseObject({ ttl_seconds: ttlField });

export function ttlSeconds(body: Body): number | undefined {
  return parseTinker(ttlBody, body).ttl_seconds;
}
