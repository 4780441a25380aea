/**
 * The policy map of an embedded run (DESIGN.md "Policy map"): which model (or LoRA adapter)
 * plays each role, the Policy that samples from it, and the Learner that trains it.
 *
 * - `shared`: one model, policy id `shared`, plays every role.
 * - `per-role`: one model per role, each a copy of the same base weights; policy id = role.
 * - `lora`: one frozen base model with one adapter per role; policy id = role, the sampler
 *   and the learner both select that role's adapter.
 * - a mapping role -> id: roles with the same id share a model (a copy of the base, or a model
 *   of its own size when `policy.models.<id>` overrides the sizes).
 */
import type { LlamaConfig } from '../engine/model/llama-config.js';
import { LlamaModel } from '../engine/model/llama-model.js';
import type { LoraConfig } from '../engine/model/lora.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { EmbeddedPolicy, type PromptFormat } from '../policy/embedded-policy.js';
import { TroupeError } from '../util/errors.js';
import { Learner, type LearnerOptions } from './learner.js';

export type PolicyMapSpec = 'shared' | 'per-role' | 'lora' | Readonly<Record<string, string>>;

export interface PolicyMember {
  readonly id: string;
  readonly model: LlamaModel;
  readonly adapter?: string;
  readonly policy: EmbeddedPolicy;
  readonly learner: Learner;
  /** Roles this policy plays. */
  readonly roles: readonly string[];
}

export interface PolicySet {
  readonly members: ReadonlyMap<string, PolicyMember>;
  /** Policy id per role. */
  readonly roleToPolicy: ReadonlyMap<string, string>;
  /** Model ids per distinct model object (a LoRA base is one model for several policies). */
  readonly models: ReadonlyMap<string, LlamaModel>;
  policyFor(role: string): EmbeddedPolicy;
  dispose(): void;
}

/** Policy id of every role under a map spec. */
export function assignRoles(spec: PolicyMapSpec, roles: readonly string[]): Map<string, string> {
  if (spec === 'shared') return new Map(roles.map((r) => [r, 'shared']));
  if (spec === 'per-role' || spec === 'lora') return new Map(roles.map((r) => [r, r]));
  const unknown = Object.keys(spec).filter((r) => !roles.includes(r));
  if (unknown.length > 0) throw new TroupeError('config', `policy.map names role(s) ${unknown.join(', ')} that the team does not have; its roles: ${roles.join(', ')}`);
  const missing = roles.filter((r) => spec[r] === undefined);
  if (missing.length > 0) throw new TroupeError('config', `policy.map gives no policy for role(s) ${missing.join(', ')}; map every role (${roles.join(', ')})`);
  return new Map(roles.map((r) => [r, spec[r]!]));
}

/** A copy of `base` with its own weights (all trainable). */
export function copyModel(base: LlamaModel): LlamaModel {
  return LlamaModel.fromTensors(base.kernels, base.config, base.parameters);
}

export function buildPolicySet(options: {
  spec: PolicyMapSpec;
  roles: readonly string[];
  /** The base model(s): `base` for every policy without its own sizes, else by policy id. */
  base: LlamaModel;
  own?: ReadonlyMap<string, LlamaModel>;
  tokenizer: Tokenizer;
  learner: LearnerOptions;
  lora: LoraConfig;
  seed: number;
  /** With a KL penalty: each policy's frozen reference is a copy of its starting weights. */
  withReference: boolean;
  /** Chat template and stop tokens of a loaded chat model (see EmbeddedPolicy). */
  prompting?: PromptFormat;
}): PolicySet {
  const { spec, roles, base, tokenizer } = options;
  const roleToPolicy = assignRoles(spec, roles);
  const ids = [...new Set(roleToPolicy.values())];
  const members = new Map<string, PolicyMember>();
  const models = new Map<string, LlamaModel>();
  const rolesOf = (id: string) => roles.filter((r) => roleToPolicy.get(r) === id);
  if (spec === 'lora') {
    const shared = copyModel(base);
    shared.freezeBase();
    models.set('base', shared);
    for (const id of ids) {
      shared.addAdapter(id, options.lora, options.seed);
      const learner = new Learner({ policyId: id, model: shared, adapter: id, options: options.learner, reference: options.withReference ? { model: shared } : undefined });
      members.set(id, { id, model: shared, adapter: id, policy: new EmbeddedPolicy({ id, model: shared, tokenizer, adapter: id, prompting: options.prompting }), learner, roles: rolesOf(id) });
    }
  } else {
    for (const id of ids) {
      const start = options.own?.get(id) ?? base;
      const model = copyModel(start);
      models.set(id, model);
      const reference = options.withReference ? { model: copyModel(start) } : undefined;
      const learner = new Learner({ policyId: id, model, options: options.learner, reference });
      members.set(id, { id, model, policy: new EmbeddedPolicy({ id, model, tokenizer, prompting: options.prompting }), learner, roles: rolesOf(id) });
    }
  }
  return {
    members,
    roleToPolicy,
    models,
    policyFor(role) {
      const id = roleToPolicy.get(role);
      if (id === undefined) throw new TroupeError('invariant', `internal invariant broken: no policy for role '${role}'`);
      return members.get(id)!.policy;
    },
    dispose() {
      for (const m of members.values()) m.learner.dispose();
      for (const model of models.values()) model.dispose();
    },
  };
}

/** The model config of a policy with size overrides (heterogeneous teams). */
export function overriddenConfig(base: LlamaConfig, sizes: { hidden?: number; layers?: number; heads?: number; kv_heads?: number; intermediate?: number }): LlamaConfig {
  const heads = sizes.heads ?? base.num_attention_heads;
  return {
    ...base,
    hidden_size: sizes.hidden ?? base.hidden_size,
    num_hidden_layers: sizes.layers ?? base.num_hidden_layers,
    num_attention_heads: heads,
    num_key_value_heads: sizes.kv_heads ?? (sizes.heads !== undefined ? heads : base.num_key_value_heads),
    intermediate_size: sizes.intermediate ?? base.intermediate_size,
  };
}
