/**
 * Keys a config sets that would do nothing in the combination it resolves to. SEEDS.md section 3:
 * "config keys must never be silent no-ops", so each is an error naming the key, why it does
 * nothing there and the fix.
 *
 * Only keys the config SETS to a value other than their default count: an unused default is
 * not a user's mistake, and a run folder's config.yaml spells out every default. A `--set` that
 * changes the deciding key sets the file's dependent keys aside (they are reset to their
 * defaults, which changes nothing since they act nowhere): the examples set `policy.skill` for
 * their scripted player, and `--set policy.kind=embedded` on such a file means "train this
 * config instead", not "and keep the skill". A dependent key given by `--set` itself is always
 * checked.
 *
 * Harmless by design (not errors): the `model`, `warm_start` and `train` sections under a kind
 * other than embedded, and `train` under `troupe rollout` / `troupe eval` (one run config
 * serves every command; only `troupe train` reads them); sampling keys (`rollout.temperature`,
 * `top_p`, `top_k`) under the scripted and reference players, which do not sample tokens.
 * docs/config.md lists the rules.
 */
import { sections, type ParsedConfig } from './config-schema.js';
import type { Override } from './resolve-config.js';

export interface KeyProblem {
  readonly path: string;
  readonly message: string;
}

/** The values the rules read, after the algorithm's defaults are applied. */
export type IgnoredKeyInput = Pick<ParsedConfig, 'algorithm' | 'advantage' | 'policy' | 'model' | 'warm_start' | 'team'> & {
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
const WARM_START_KEYS = ['skill', 'episodes', 'epochs', 'lr', 'batch_tokens', 'warmup_steps', 'order', 'max_turns'].map((k) => `warm_start.${k}`);
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
    keys: ['policy.map'],
    decidedBy: ['policy.kind'],
    applies: (c) => c.policy.kind === 'embedded' || c.policy.kind === 'tinker',
    why: (c) => `only embedded models and tinker training clients are mapped to roles, and policy.kind is ${c.policy.kind}; remove it or set policy.kind: embedded`,
  },
  {
    keys: ['policy.models'],
    decidedBy: ['policy.kind'],
    applies: (c) => c.policy.kind === 'embedded',
    why: (c) => `only embedded models have per-policy sizes, and policy.kind is ${c.policy.kind}; remove it or set policy.kind: embedded`,
  },
  {
    keys: ['policy.tinker'],
    decidedBy: ['policy.kind'],
    applies: (c) => c.policy.kind === 'tinker',
    why: (c) => `only policy.kind tinker trains on a Tinker service, and policy.kind is ${c.policy.kind}; remove it or set policy.kind: tinker`,
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
    keys: ['train.lora_lr', 'train.lora_lr_scale'],
    decidedBy: ['policy.kind', 'policy.map'],
    applies: (c) => c.policy.kind !== 'embedded' || c.policy.map === 'lora',
    why: (c) => `only LoRA adapters train at a LoRA rate, and the map is ${JSON.stringify(c.policy.map)} (full fine-tuning at train.lr); remove it or set policy.map: lora`,
  },
  {
    keys: ['train.lora_lr_scale'],
    decidedBy: ['train.lora_lr'],
    applies: (c) => c.train.lora_lr === undefined,
    why: (c) => `train.lora_lr sets the LoRA rate outright (${c.train.lora_lr}), so the scale of train.lr does nothing; keep one of the two`,
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
    keys: ['advantage.group_by'],
    decidedBy: ['algorithm'],
    applies: (c) => c.algorithm === 'at-grpo',
    why: (c) => `the grouping ablation regroups tree-sampling nodes, and algorithm ${c.algorithm} does not sample trees; remove it or use algorithm at-grpo`,
  },
  {
    keys: ['team.alpha'],
    decidedBy: ['algorithm'],
    applies: (c) => c.algorithm !== 'magrpo',
    why: () => "algorithm magrpo scores every response by the joint reward's returns; alpha would only rescale the logged reward.total. Remove it, or use algorithm at-grpo or grpo to mix local rewards in",
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

/** Whether the value at `path` came from a `--set` (of it, of a section holding it, or of a key inside it). */
function fromOverride(path: string, overrides: readonly Override[]): boolean {
  return overrides.some((o) => path === o.key || path.startsWith(`${o.key}.`) || o.key.startsWith(`${path}.`));
}

/** The value at the dotted `path` of a nested object, or undefined. */
export function valueAt(object: unknown, path: string): unknown {
  let node = object;
  for (const part of path.split('.')) {
    if (!isPlainObject(node)) return undefined;
    node = node[part];
  }
  return node;
}

/** Every section with its defaults filled, for "is this value the default?". */
const DEFAULTS: Record<string, unknown> = Object.fromEntries(Object.entries(sections).map(([name, schema]) => [name, schema.parse(undefined)]));

export interface IgnoredKeys {
  readonly problems: KeyProblem[];
  /** File keys set aside by a `--set` of their deciding key: the caller resets them to defaults. */
  readonly setAside: string[];
}

/**
 * Checks `config` (parsed values, algorithm defaults applied) against the raw `object` it came
 * from. `orderDefault` is team.order's default under the config's algorithm.
 */
export function ignoredKeys(
  object: Record<string, unknown>,
  config: IgnoredKeyInput,
  options: { overrides: readonly Override[]; orderDefault: string; savedRun?: boolean },
): IgnoredKeys {
  const problems: KeyProblem[] = [];
  const setAside: string[] = [];
  const defaultOf = (key: string) => (key === 'team.order' ? options.orderDefault : valueAt(DEFAULTS, key));
  const isSet = (key: string) => setsPath(object, key) && JSON.stringify(valueAt(config, key)) !== JSON.stringify(defaultOf(key));
  for (const rule of rules) {
    if (rule.applies(config)) continue;
    // A run folder's config.yaml spells out the defaults of the version that wrote it, so a
    // key that does nothing there may differ from today's default (model.lora.train_unembed
    // changed default): the file's inert keys are set aside like those a --set switched off.
    const setAsideFileKeys = options.savedRun === true || rule.decidedBy.some((d) => fromOverride(d, options.overrides));
    for (const key of rule.keys) {
      if (!isSet(key) || problems.some((p) => p.path === key) || setAside.includes(key)) continue;
      if (setAsideFileKeys && !fromOverride(key, options.overrides)) setAside.push(key);
      else problems.push({ path: key, message: `has no effect here: ${rule.why(config)}` });
    }
  }
  return { problems, setAside };
}

/** `config` with each of `paths` back at its default (a copy; sections are copied on the way). */
export function resetToDefaults<T extends Record<string, unknown>>(config: T, paths: readonly string[]): T {
  const out: Record<string, unknown> = { ...config };
  for (const path of paths) {
    const [section, ...rest] = path.split('.');
    let node = (out[section!] = { ...(out[section!] as Record<string, unknown>) });
    for (const part of rest.slice(0, -1)) node = node[part] = { ...(node[part] as Record<string, unknown>) };
    const value = valueAt(DEFAULTS, path);
    if (value === undefined) delete node[rest.at(-1)!];
    else node[rest.at(-1)!] = structuredClone(value);
  }
  return out as T;
}
