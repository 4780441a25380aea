/**
 * Keys a config sets that would do nothing in the combination it resolves to. SEEDS.md section 3:
 * "config keys must never be silent no-ops", so each is an error naming the key, why it does
 * nothing there and the fix.
 *
 * Only keys the config SETS count (a default that goes unused is not a user's mistake), and a
 * `--set` that changes the deciding key sets the file's dependent keys aside: the examples set
 * `policy.skill` for their scripted player, and `--set policy.kind=embedded` on such a file
 * means "train this config instead", not "and keep the skill". A dependent key given by `--set`
 * itself is always checked.
 *
 * Harmless by design (not errors): the `model`, `warm_start` and `train` sections under a kind
 * other than embedded, and `train` under `troupe rollout` / `troupe eval` (one run config
 * serves every command; only `troupe train` reads them); sampling keys (`rollout.temperature`,
 * `top_p`, `top_k`) under the scripted and reference players, which do not sample tokens.
 * docs/config.md lists the rules.
 */
import type { ParsedConfig } from './config-schema.js';
import type { Override } from './resolve-config.js';

export interface KeyProblem {
  readonly path: string;
  readonly message: string;
}

/** The values the rules read, after the algorithm's defaults are applied. */
export type IgnoredKeyInput = Pick<ParsedConfig, 'policy' | 'model' | 'warm_start' | 'team'> & {
  readonly train: ParsedConfig['train'];
  readonly magrpo: { readonly joint: 'aligned' | 'cross' } | undefined;
};

interface Rule {
  /** Keys that only act when `applies`. */
  readonly keys: readonly string[];
  /** The keys `applies` reads: a --set of one of them sets the file's `keys` aside. */
  readonly decidedBy: readonly string[];
  readonly applies: (c: IgnoredKeyInput) => boolean;
  readonly why: (c: IgnoredKeyInput) => string;
}

const FRESH_MODEL_KEYS = ['hidden', 'layers', 'heads', 'kv_heads', 'intermediate', 'context', 'tied', 'tokenizer', 'seed'].map((k) => `model.${k}`);
const WARM_START_KEYS = ['skill', 'episodes', 'epochs', 'lr', 'batch_tokens', 'warmup_steps'].map((k) => `warm_start.${k}`);
const hasOwnSizes = (c: IgnoredKeyInput) => Object.keys(c.policy.models).length > 0;

const rules: readonly Rule[] = [
  {
    keys: ['policy.skill'],
    decidedBy: ['policy.kind'],
    applies: (c) => c.policy.kind === 'scripted',
    why: (c) =>
      `only the scripted player reads it, and policy.kind is ${c.policy.kind}` +
      (c.policy.kind === 'embedded' ? ' (the warm start demonstrations use warm_start.skill)' : '') +
      '; remove it or set policy.kind: scripted',
  },
  {
    keys: ['policy.map', 'policy.models'],
    decidedBy: ['policy.kind'],
    applies: (c) => c.policy.kind === 'embedded',
    why: (c) => `only embedded models are mapped to roles, and policy.kind is ${c.policy.kind}; remove it or set policy.kind: embedded`,
  },
  {
    keys: ['policy.openai'],
    decidedBy: ['policy.kind', 'policy.openai.roles'],
    applies: (c) => c.policy.kind === 'openai' || (c.policy.openai?.roles?.length ?? 0) > 0,
    why: (c) =>
      `with policy.kind ${c.policy.kind} the server plays only the roles listed in policy.openai.roles, and none are; list them (a mixed team) or set policy.kind: openai`,
  },
  {
    keys: ['policy.openai.roles'],
    decidedBy: ['policy.kind'],
    applies: (c) => c.policy.kind !== 'openai',
    why: () => 'with policy.kind openai the server plays every role; roles picks the served roles of a mixed team (another kind plays the rest). Remove it, or set policy.kind to the kind of the other roles',
  },
  {
    keys: ['model.lora'],
    decidedBy: ['policy.kind', 'policy.map'],
    applies: (c) => c.policy.kind !== 'embedded' || c.policy.map === 'lora',
    why: (c) => `LoRA adapters exist only with policy.map: lora, and the map is ${JSON.stringify(c.policy.map)}; remove it or set policy.map: lora`,
  },
  {
    keys: FRESH_MODEL_KEYS,
    decidedBy: ['model.path'],
    applies: (c) => c.model.path === undefined,
    why: (c) => `model.path loads ${c.model.path} with its own sizes, tokenizer and weights, so this key does nothing; remove it, or drop model.path to initialise a new model`,
  },
  {
    keys: WARM_START_KEYS,
    decidedBy: ['warm_start.enabled'],
    applies: (c) => c.warm_start.enabled,
    why: () => 'warm_start.enabled is false; remove the key or enable the warm start',
  },
  {
    keys: WARM_START_KEYS,
    decidedBy: ['model.path', 'policy.models'],
    applies: (c) => c.model.path === undefined || hasOwnSizes(c),
    why: (c) => `the warm start teaches a new model, and model.path loads ${c.model.path} as it is; remove the key, or drop model.path`,
  },
  {
    keys: ['train.clip_low', 'train.clip_high'],
    decidedBy: ['train.loss', 'algorithm'],
    applies: (c) => c.train.loss === 'ppo-clip',
    why: (c) => `ratio clipping belongs to train.loss ppo-clip, and the loss is ${c.train.loss} (no ratio); remove it or set train.loss: ppo-clip`,
  },
  {
    keys: ['train.kl_estimator'],
    decidedBy: ['train.kl_coef'],
    applies: (c) => c.train.kl_coef > 0,
    why: () => 'train.kl_coef is 0, so no KL is estimated; remove it or set train.kl_coef above 0',
  },
  {
    keys: ['magrpo.credit'],
    decidedBy: ['magrpo.joint'],
    applies: (c) => c.magrpo?.joint === 'cross',
    why: () => 'aligned joint actions put each response in one joint action, so sum and mean credit are equal; remove it or set magrpo.joint: cross',
  },
  {
    keys: ['team.order'],
    decidedBy: ['team.variant'],
    applies: (c) => c.team.variant === 'team',
    why: () => 'team.variant single has one role, so there is no order to choose; remove it or set team.variant: team',
  },
];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether the raw config object sets the dotted `path`. */
export function setsPath(object: Record<string, unknown>, path: string): boolean {
  let node: unknown = object;
  for (const part of path.split('.')) {
    if (!isPlainObject(node)) return false;
    node = node[part];
  }
  return node !== undefined;
}

/** Whether the value at `path` came from a `--set` (of it, or of a section holding it). */
function fromOverride(path: string, overrides: readonly Override[]): boolean {
  return overrides.some((o) => path === o.key || path.startsWith(`${o.key}.`));
}

export function ignoredKeys(object: Record<string, unknown>, config: IgnoredKeyInput, overrides: readonly Override[]): KeyProblem[] {
  const problems: KeyProblem[] = [];
  for (const rule of rules) {
    if (rule.applies(config)) continue;
    const switchedBySet = rule.decidedBy.some((d) => fromOverride(d, overrides));
    for (const key of rule.keys) {
      if (!setsPath(object, key) || problems.some((p) => p.path === key)) continue;
      if (switchedBySet && !fromOverride(key, overrides)) continue;
      problems.push({ path: key, message: `has no effect here: ${rule.why(config)}` });
    }
  }
  return problems;
}
