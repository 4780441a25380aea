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
import { idsWithoutToken } from '../engine/tokenizer/ids-without-token.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { EmbeddedPolicy, type PromptFormat } from '../policy/embedded-policy.js';
import type { TinkerLearner } from '../policy/tinker-learner.js';
import type { TinkerPolicy } from '../policy/tinker-policy.js';
import type { Policy } from '../policy/types.js';
import { TroupeError } from '../util/errors.js';
import { deriveSeed } from '../util/rng.js';
import { Learner, type LearnerOptions, type MicroBatchProgress, type TrainingSequence } from './learner.js';

export type PolicyMapSpec = 'shared' | 'per-role' | 'lora' | Readonly<Record<string, string>>;

/** What one update reports, whichever backend ran it (entropy is not available over the Tinker API). */
export interface PolicyUpdate {
  readonly loss: number;
  readonly clip_fraction: number;
  readonly kl: number | null;
  readonly entropy: number | null;
  readonly grad_norm: number | null;
  readonly tokens: number;
  /** Largest |sampling - learner| logprob over the update's tokens (stale samples included). */
  readonly max_logprob_gap?: number;
  /** Asynchronous training: range of the truncated importance weights min(pi_learner / pi_sampler, C). */
  readonly is_weight_min?: number;
  readonly is_weight_max?: number;
  /** Mean |sampling - learner| logprob per token, and the truncated importance weights' mean and share at the cap (logprob-gap.ts). */
  readonly mean_logprob_gap?: number;
  readonly is_weight_mean?: number;
  readonly is_truncated_fraction?: number;
}

/** One policy of the map: the trainer loop sees only `policy`, `roles` and `update`. */
interface MemberCommon {
  readonly id: string;
  /** Roles this policy plays. */
  readonly roles: readonly string[];
  readonly policy: Policy;
  /**
   * One optimizer step on this policy's sequences; afterwards `policy` samples the new weights.
   * `progress` hears of each learner micro-batch (embedded learners; others ignore it).
   */
  update(sequences: readonly TrainingSequence[], lr: number, progress?: MicroBatchProgress): Promise<PolicyUpdate>;
}

export interface EmbeddedMember extends MemberCommon {
  readonly backend: 'embedded';
  readonly model: LlamaModel;
  readonly adapter?: string;
  readonly policy: EmbeddedPolicy;
  readonly learner: Learner;
}

/** A LoRA training client on a Tinker-compatible service (src/train/tinker-policy-set.ts). */
export interface TinkerMember extends MemberCommon {
  readonly backend: 'tinker';
  readonly policy: TinkerPolicy;
  readonly learner: TinkerLearner;
  /** Samples from now on with the weights saved for sampling under this session id or tinker:// path. */
  useSampler(sampler: string): Promise<void>;
  /**
   * Continues from the training state saved at a tinker:// path: a fresh training client loads
   * it (weights and Adam state), the learner trains and the policy samples through it, and the
   * previous client is unloaded.
   */
  restore(path: string): Promise<void>;
}

export type PolicyMember = EmbeddedMember | TinkerMember;

export interface PolicySet {
  readonly members: ReadonlyMap<string, PolicyMember>;
  /** Policy id per role. */
  readonly roleToPolicy: ReadonlyMap<string, string>;
  policyFor(role: string): Policy;
  dispose(): void;
}

/** The set's `policyFor`, with the error a role outside the map gets. */
export function policyLookup(roleToPolicy: ReadonlyMap<string, string>, members: ReadonlyMap<string, PolicyMember>): (role: string) => Policy {
  return (role) => {
    const id = roleToPolicy.get(role);
    if (id === undefined) throw new TroupeError('invariant', `internal invariant broken: no policy for role '${role}'`);
    return members.get(id)!.policy;
  };
}

/** An embedded member: its learner runs in-process, synchronously. */
function embeddedMember(init: Omit<EmbeddedMember, 'backend' | 'update'>): EmbeddedMember {
  return { backend: 'embedded', ...init, update: async (sequences, lr, progress) => init.learner.update(sequences, lr, progress) };
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

/**
 * The seed of policy `policyId`'s LoRA adapter in a run seeded `runSeed`. The embedded engine
 * initialises the adapter from it, and a tinker run sends it as create_model's lora_config.seed,
 * so both start from the same adapter (LoraAdapter's A depends only on the seed, not the name).
 */
export function adapterSeed(runSeed: number, policyId: string): number {
  return deriveSeed(runSeed, 'lora', policyId);
}

/** A copy of `base` with its own weights (all trainable, float32). */
export function copyModel(base: LlamaModel): LlamaModel {
  return base.clone({ trainable: true });
}

/**
 * The policies of an embedded run. Takes ownership of `base`: LoRA adapters share it in place
 * (frozen), so a bf16 0.6B base is never held twice (a copy made the set-up of a LoRA run peak
 * at two bases, 2.4 GB); the other maps copy it for each policy and free it. `own` models stay
 * the caller's.
 */
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
  /**
   * Never sample the ids the tokenizer has no token for (padded embedding rows); each policy's
   * learner leaves the same ids out of its softmax, so sampled and recomputed log-probs agree.
   */
  maskTokenlessIds?: boolean;
}): PolicySet {
  const { spec, roles, base, tokenizer } = options;
  const maskOf = (model: LlamaModel) => (options.maskTokenlessIds ? idsWithoutToken(tokenizer, model.config.vocab_size) : new Int32Array(0));
  const roleToPolicy = assignRoles(spec, roles);
  const ids = [...new Set(roleToPolicy.values())];
  const members = new Map<string, EmbeddedMember>();
  const models = new Map<string, LlamaModel>();
  const rolesOf = (id: string) => roles.filter((r) => roleToPolicy.get(r) === id);
  if (spec === 'lora') {
    const shared = base;
    shared.freezeBase(); // a bf16 base stays bf16
    models.set('base', shared);
    const logitMask = maskOf(shared);
    for (const id of ids) {
      shared.addAdapter(id, options.lora, adapterSeed(options.seed, id));
      const learner = new Learner({ policyId: id, model: shared, adapter: id, options: options.learner, reference: options.withReference ? { model: shared } : undefined, logitMask });
      members.set(id, embeddedMember({ id, model: shared, adapter: id, policy: new EmbeddedPolicy({ id, model: shared, tokenizer, adapter: id, prompting: options.prompting, logitMask }), learner, roles: rolesOf(id) }));
    }
  } else {
    for (const id of ids) {
      const start = options.own?.get(id) ?? base;
      const model = copyModel(start);
      models.set(id, model);
      const reference = options.withReference ? { model: copyModel(start) } : undefined;
      const logitMask = maskOf(model);
      const learner = new Learner({ policyId: id, model, options: options.learner, reference, logitMask });
      members.set(id, embeddedMember({ id, model, policy: new EmbeddedPolicy({ id, model, tokenizer, prompting: options.prompting, logitMask }), learner, roles: rolesOf(id) }));
    }
    base.dispose();
  }
  return {
    members,
    roleToPolicy,
    policyFor: policyLookup(roleToPolicy, members),
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
