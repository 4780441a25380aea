/**
 * Turns a resolved config into the live objects of a training run: the team and its task
 * source, the tokenizer, the base model(s) (warm-started or loaded), and the policy set with
 * one learner per policy.
 */
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { describeKernels, getKernels } from '../engine/kernels/get-kernels.js';
import { checkFolderOrHubId, resolveModel } from '../engine/hub/resolve-model.js';
import { loadModel } from '../engine/io/model-checkpoint.js';
import type { PromptFormat } from '../policy/embedded-policy.js';
import { promptFormatOf } from '../policy/prompt-format.js';
import { llamaConfig, type LlamaConfig } from '../engine/model/llama-config.js';
import type { LlamaModel } from '../engine/model/llama-model.js';
import { llamaParameterShapes } from '../engine/model/llama-params.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { idsWithoutToken } from '../engine/tokenizer/ids-without-token.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import type { ResolvedConfig } from '../config/resolve-config.js';
import { rolloutOptions, taskOptions, teamOptions } from '../config/runtime-options.js';
import { taskOf } from '../config/task-of-config.js';
import type { Env, TaskSource, Team } from '../envs/types.js';
import type { Policy } from '../policy/types.js';
import type { RolloutOptions } from '../rollout/types.js';
import { TroupeError } from '../util/errors.js';
import { prepareBaseModel } from './base-model.js';
import { demonstrationTeam } from './demonstration-team.js';
import type { LearnerOptions } from './learner.js';
import { assignRoles, buildPolicySet, overriddenConfig, type PolicySet } from './policy-set.js';
import { buildTinkerPolicySet } from './tinker-policy-set.js';
import { tinkerApiKey, tinkerBaseModel, tinkerPrompting } from './tinker-service-setup.js';
import { MAX_MICRO_BATCH_TOKENS, resolveMicroBatchTokens } from './micro-batch-tokens.js';
import type { TrainStepInput } from './train-step.js';
import type { WarmStartStep } from './warm-start.js';
import { engineName } from './resume-checkpoint.js';

export interface RunSetup {
  readonly tokenizer: Tokenizer;
  readonly policies: PolicySet;
  readonly stepInput: Omit<TrainStepInput<Env>, 'seed' | 'step' | 'lr'>;
  readonly evalInput: { team: Team<Env>; source: TaskSource<Env>; policyFor: (role: string) => Policy; rollout: RolloutOptions };
  /** The kernels that compute an embedded run (engineName); undefined on a Tinker service. */
  readonly engine?: string;
  dispose(): void;
}

/** `models`: the shapes the learners train, which `micro_batch_tokens: auto` is sized to. */
export function learnerOptions(config: ResolvedConfig, models: readonly LlamaConfig[] = []): LearnerOptions {
  const t = config.train;
  return {
    loss: { kind: t.loss, aggregation: t.aggregation, clipLow: t.clip_low, clipHigh: t.clip_high, klCoef: t.kl_coef, klEstimator: t.kl_estimator },
    gradClip: t.grad_clip,
    weightDecay: t.weight_decay,
    microBatchTokens: resolveMicroBatchTokens(t.micro_batch_tokens, models),
    logprobTolerance: t.logprob_tolerance,
    // Asynchronous samples come from older weights: decoupled PPO with TIS corrects for them.
    oldLogprobs: t.old_logprobs === 'auto' && t.max_steps_off_policy > 0 ? 'learner' : t.old_logprobs,
    tisCap: t.tis_cap,
    logprobGapLimit: t.logprob_gap_limit,
  };
}

export function baseModelConfig(config: ResolvedConfig, vocab: number): LlamaConfig {
  const m = config.model;
  return llamaConfig({ hidden: m.hidden, layers: m.layers, heads: m.heads, kvHeads: m.kv_heads, intermediate: m.intermediate, vocab, context: m.context, tied: m.tied });
}

/**
 * Checks what the schema cannot: that the config can be trained and its policy map fits the
 * team. Runs before anything is written, so a bad config leaves no half-made run folder.
 */
export function checkTrainable(config: ResolvedConfig): void {
  if (config.policy.kind !== 'embedded' && config.policy.kind !== 'tinker') {
    throw new TroupeError('config', `policy.kind: troupe train trains embedded models or LoRA clients on a Tinker service, got ${JSON.stringify(config.policy.kind)}; set policy.kind: embedded or tinker (use troupe eval or troupe rollout for other kinds)`);
  }
  if (config.policy.kind === 'tinker') {
    tinkerApiKey();
    tinkerBaseModel(config);
  }
  if (config.policy.openai !== undefined) {
    throw new TroupeError(
      'config',
      'policy.openai: troupe train trains every role in-process on the embedded engine; served models are for rollout and eval (docs/real-llms.md). Remove the openai section to train',
    );
  }
  const task = taskOf(config);
  const roles = task.createTeam(taskOptions(config), teamOptions(config)).roles.map((r) => r.name);
  const roleToPolicy = assignRoles(config.policy.map, roles);
  const ids = [...new Set(roleToPolicy.values())];
  for (const id of Object.keys(config.policy.models)) {
    if (config.policy.map === 'lora') {
      throw new TroupeError('config', 'policy.models: LoRA adapters share one base model, so per-policy sizes do not apply; use policy.map per-role or a mapping');
    }
    if (!ids.includes(id)) throw new TroupeError('config', `policy.models.${id}: no role is played by policy '${id}'; policy ids in use: ${ids.join(', ')}`);
  }
  for (const id of config.train.frozen) {
    if (!ids.includes(id)) throw new TroupeError('config', `train.frozen: no role is played by policy '${id}'; policy ids in use: ${ids.join(', ')} (with policy.map: shared the one policy is '${ids[0]}')`);
  }
  if (config.train.max_steps_off_policy > 0 && config.train.loss === 'reinforce' && !config.train.allow_off_policy_reinforce) {
    throw new TroupeError('config', `train.max_steps_off_policy: ${config.train.max_steps_off_policy} trains on samples drawn by older weights, but train.loss reinforce (MAGRPO's) has no importance ratio to correct for them; keep max_steps_off_policy: 0, use train.loss: ppo-clip, or accept uncorrected stale samples with train.allow_off_policy_reinforce: true`);
  }
  if (config.train.steps > 0 && ids.every((id) => config.train.frozen.includes(id))) {
    throw new TroupeError('config', `train.frozen lists every policy (${ids.join(', ')}): nothing would train; remove one, or use troupe eval to measure the policies as they are`);
  }
  if (config.policy.kind === 'embedded' && config.model.path === undefined) checkModelFits(config, ids, totalmem());
  if (config.policy.kind === 'embedded' && config.model.path !== undefined) checkFolderOrHubId(config.model.path);
}

/** Bytes a float32 parameter costs in training: itself, its gradient and two Adam moments. */
const TRAINING_BYTES_PER_PARAMETER = 16;

/**
 * Refuses model sizes whose weights, gradients and Adam moments alone exceed the machine's
 * memory (`model.hidden: 1e5` would otherwise fail deep in an allocation, or swap for hours).
 * Activations come on top, so passing this is necessary, not sufficient.
 */
export function checkModelFits(config: ResolvedConfig, policyIds: readonly string[], memoryBytes: number): void {
  const vocab = (config.model.tokenizer === 'ascii' ? CharTokenizer.ascii() : CharTokenizer.standard()).vocabSize;
  const base = baseModelConfig(config, vocab);
  const configs = config.policy.map === 'per-role' || typeof config.policy.map === 'object' ? policyIds.map((id) => overriddenConfig(base, config.policy.models[id] ?? {})) : [base];
  const parameters = configs.reduce((n, c) => n + [...llamaParameterShapes(c).values()].reduce((m, shape) => m + shape.reduce((a, b) => a * b, 1), 0), 0);
  const bytes = parameters * TRAINING_BYTES_PER_PARAMETER * (config.train.kl_coef > 0 ? 1.25 : 1);
  if (bytes > memoryBytes) {
    const gib = (b: number) => `${(b / 2 ** 30).toFixed(b < 2 ** 30 ? 2 : 0)} GiB`;
    throw new TroupeError('config', `model: ${configs.length} model(s) of hidden ${base.hidden_size}, ${base.num_hidden_layers} layers, intermediate ${base.intermediate_size} have ${parameters.toExponential(2)} parameters and need ~${gib(bytes)} for weights, gradients and Adam moments, more than this machine's ${gib(memoryBytes)}; choose smaller model sizes`);
  }
}

/** Builds the run's live objects; the caller has already passed `checkTrainable(config)`. */
export async function setupRun(config: ResolvedConfig, runDir: string, hooks: { log: (m: string) => void; onWarmStartStep?: (s: WarmStartStep) => void; shouldStop?: () => boolean }): Promise<RunSetup> {
  const task = taskOf(config);
  const team = task.createTeam(taskOptions(config), teamOptions(config)) as Team<Env>;
  const source = task.createSource(taskOptions(config), config.seed) as TaskSource<Env>;
  const rollout = rolloutOptions(config);
  const kernels = await getKernels(config.engine.backend, config.engine.bf16_matmul);
  hooks.log(describeKernels(kernels, config.engine.backend));
  const roles = team.roles.map((r) => r.name);
  const spec = config.policy.map;
  const roleToPolicy = assignRoles(spec, roles);

  if (config.policy.kind === 'tinker') {
    const { tokenizer, prompting } = tinkerPrompting(config);
    const policies = await buildTinkerPolicySet({ config, roles, tokenizer, prompting, learner: learnerOptions(config), log: hooks.log });
    return runSetup(config, { team, source, rollout, tokenizer, policies });
  }
  let tokenizer: Tokenizer = config.model.tokenizer === 'ascii' ? CharTokenizer.ascii() : CharTokenizer.standard();
  const ws = config.warm_start;
  const warmStart = { enabled: ws.enabled, skill: ws.skill, episodes: ws.episodes, epochs: ws.epochs, lr: ws.lr, batchTokens: ws.batch_tokens, warmupSteps: ws.warmup_steps };
  const demonstrations = demonstrationTeam(config, team);
  const build = (modelConfig: LlamaConfig, dir: string, forRoles: readonly string[]): Promise<LlamaModel> =>
    prepareBaseModel({
      kernels,
      tokenizer,
      config: modelConfig,
      seed: config.model.seed ?? config.seed,
      dir,
      // The demonstrated team's settings join the key only when they differ from the run's, so
      // bases cached before warm_start.order/max_turns existed keep their key.
      keyMaterial: { tasks: config.tasks, team: config.team, stop: rollout.stop, ...(demonstrations.key === undefined ? {} : { demonstrations: demonstrations.key }) },
      warmStart,
      team: demonstrations.team,
      roles: forRoles,
      source,
      scripted: task.scripted,
      rollout,
      learner: learnerOptions(config, [modelConfig]),
      onStep: hooks.onWarmStartStep,
      ...(hooks.shouldStop === undefined ? {} : { shouldStop: hooks.shouldStop }),
      log: hooks.log,
    });

  let base: LlamaModel;
  let prompting: PromptFormat | undefined;
  if (config.model.path !== undefined) {
    const dir = await resolveModel(config.model.path);
    // LoRA keeps the base frozen, so a bf16 checkpoint stays bf16 (half the memory).
    const loaded = loadModel(kernels, dir, { frozen: config.policy.map === 'lora' });
    base = loaded.model;
    tokenizer = loaded.tokenizer;
    prompting = promptFormatOf(dir, tokenizer, { format: config.team.format, enableThinking: config.model.enable_thinking });
    hooks.log(`loaded the base model from ${config.model.path}${dir === config.model.path ? '' : ` (${dir})`}`);
    const tokenless = idsWithoutToken(tokenizer, base.config.vocab_size);
    if (tokenless.length > 0) {
      hooks.log(`${tokenless.length} of the model's ${base.config.vocab_size} ids have no token (ids ${tokenless[0]}..${tokenless.at(-1)}): ${config.model.mask_tokenless_ids ? 'sampling never produces them (model.mask_tokenless_ids)' : 'they may be sampled and decode to no text'}`);
    }
  } else {
    base = await build(baseModelConfig(config, tokenizer.vocabSize), join(runDir, 'base'), roles);
  }
  const own = new Map<string, LlamaModel>();
  for (const [id, sizes] of Object.entries(config.policy.models)) {
    const forRoles = roles.filter((r) => roleToPolicy.get(r) === id);
    own.set(id, await build(overriddenConfig(base.config, sizes), join(runDir, `base-${id}`), forRoles));
  }
  const learner = learnerOptions(config, [base.config, ...[...own.values()].map((m) => m.config)]);
  if (config.train.micro_batch_tokens === 'auto' && learner.microBatchTokens < MAX_MICRO_BATCH_TOKENS) {
    hooks.log(`learner micro-batches of at most ${learner.microBatchTokens} tokens (train.micro_batch_tokens: auto, ~1 GiB of activations for this model)`);
  }
  const policies = buildPolicySet({
    spec,
    roles,
    base,
    own,
    tokenizer,
    learner,
    lora: { r: config.model.lora.r, alpha: config.model.lora.alpha, targetModules: config.model.lora.target_modules, ...(config.model.lora.train_unembed ? { head: true } : {}) },
    seed: config.seed,
    withReference: config.train.kl_coef > 0,
    prompting,
    maskTokenlessIds: config.model.mask_tokenless_ids,
  }); // owns base from here
  for (const m of own.values()) m.dispose();
  return runSetup(config, { team, source, rollout, tokenizer, policies, engine: engineName(kernels) });
}

function runSetup(config: ResolvedConfig, parts: { team: Team<Env>; source: TaskSource<Env>; rollout: RolloutOptions; tokenizer: Tokenizer; policies: PolicySet; engine?: string }): RunSetup {
  const { team, source, rollout, tokenizer, policies, engine } = parts;
  return {
    ...(engine === undefined ? {} : { engine }),
    tokenizer,
    policies,
    stepInput: {
      team,
      source,
      policies,
      rollout,
      estimator: config.advantage.estimator,
      filterZeroVariance: config.advantage.filter_zero_variance,
      stdFloor: config.advantage.std_floor,
      grouping: config.advantage.group_by,
      tasksPerStep: config.rollout.tasks,
      frozen: new Set(config.train.frozen),
    },
    evalInput: { team, source, policyFor: (role) => policies.policyFor(role), rollout },
    dispose: () => policies.dispose(),
  };
}
