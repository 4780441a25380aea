/**
 * The policies that play a config's roles outside training (troupe rollout, troupe eval):
 * one place that knows every `policy.kind`.
 *
 * - scripted: the task's model-free player at `policy.skill`;
 * - reference: the dataset's own solutions;
 * - embedded: the newest checkpoint of a run folder, or the model folder `model.path`
 *   (with `policy.map`: per-role models from a run, LoRA adapters on the run's base);
 * - tinker: a Tinker-compatible service (tinker-playing-policies.ts): the run's newest
 *   checkpoint, or the base model;
 * - openai: an OpenAI-compatible server (`policy.openai`); with another kind, the roles listed
 *   in `policy.openai.roles` are served and the others play as that kind (a mixed team).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { getKernels } from '../engine/kernels/get-kernels.js';
import { resolveModel } from '../engine/hub/resolve-model.js';
import { loadModel, loadModelAdapter } from '../engine/io/model-checkpoint.js';
import type { LlamaModel } from '../engine/model/llama-model.js';
import { idsWithoutToken } from '../engine/tokenizer/ids-without-token.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { promptFormatOf } from '../policy/prompt-format.js';
import type { ResolvedConfig } from '../config/resolve-config.js';
import { taskOptions } from '../config/runtime-options.js';
import type { TaskDefinition, Env } from '../envs/types.js';
import { EmbeddedPolicy } from '../policy/embedded-policy.js';
import { openaiRolePolicies } from '../policy/openai-policy.js';
import { referencePolicies } from '../policy/reference-policy.js';
import { scriptedPolicies } from '../policy/scripted-policies.js';
import type { Policy } from '../policy/types.js';
import { TroupeError } from '../util/errors.js';
import { listCheckpoints } from './checkpoint-store.js';
import { assignRoles } from './policy-set.js';
import { tinkerPlayingPolicies } from './tinker-playing-policies.js';

export interface PlayingPolicies {
  readonly policyFor: (role: string) => Policy;
  /** Where the weights came from, for messages. */
  readonly source: string;
  /** Closes connections (a tinker session's heartbeat); call when done playing. */
  readonly dispose?: () => void;
}

export interface PlayingPoliciesOptions {
  /** A run folder: its newest checkpoint plays (else the config's model). */
  readonly runDir?: string;
  /** Hears each minute one request to a Tinker service is still pending (policy.kind tinker). */
  readonly onWait?: (message: string) => void;
}

export async function playingPolicies(config: ResolvedConfig, task: TaskDefinition<Env, any>, roles: readonly string[], options: PlayingPoliciesOptions = {}): Promise<PlayingPolicies> {
  const openai = config.policy.openai;
  if (openai === undefined) return kindPolicies(config, task, roles, options);
  const servedRoles = config.policy.kind === 'openai' ? roles : (openai.roles ?? []);
  const served = openaiRolePolicies(openai, servedRoles, roles);
  const where = `${openai.base_url} (${[...served].map(([role, p]) => `${role}: ${p.options.model}`).join(', ')})`;
  if (config.policy.kind === 'openai') return { policyFor: (role) => served.get(role)!, source: where };
  const own = await kindPolicies(config, task, roles, options);
  return served.size === 0 ? own : { policyFor: (role) => served.get(role) ?? own.policyFor(role), source: `${own.source}; served ${where}`, ...(own.dispose ? { dispose: own.dispose } : {}) };
}

async function kindPolicies(config: ResolvedConfig, task: TaskDefinition<Env, any>, roles: readonly string[], options: PlayingPoliciesOptions): Promise<PlayingPolicies> {
  switch (config.policy.kind) {
    case 'scripted':
      return { policyFor: scriptedPolicies(task.scripted, config.policy.skill), source: `scripted player at skill ${config.policy.skill}` };
    case 'reference':
      return { policyFor: referencePolicies(task, taskOptions(config), config.seed), source: 'reference solutions' };
    case 'embedded':
      return embeddedPolicies(config, roles, options.runDir);
    case 'tinker':
      return tinkerPlayingPolicies(config, roles, options);
    default:
      throw new TroupeError('config', `policy.kind ${config.policy.kind} cannot play here yet`);
  }
}

async function embeddedPolicies(config: ResolvedConfig, roles: readonly string[], runDir?: string): Promise<PlayingPolicies> {
  const kernels = await getKernels(config.engine.backend, config.engine.bf16_matmul);
  const roleToPolicy = assignRoles(config.policy.map, roles);
  const checkpoint = runDir ? listCheckpoints(runDir).at(-1) : undefined;
  // Played as trained: the base folder's chat template for natural-format prompts and its stop
  // tokens (a saved policy folder keeps tokenizer_config.json but not chat_template.jinja).
  const loadedBase = config.model.path === undefined ? undefined : await resolveModel(config.model.path);
  const promptingOf = (dir: string, tokenizer: Tokenizer) => promptFormatOf(loadedBase ?? dir, tokenizer, { format: config.team.format, enableThinking: config.model.enable_thinking });
  // Played as sampled in training: without the ids the tokenizer lacks (model.mask_tokenless_ids).
  const maskOf = (model: LlamaModel, tokenizer: Tokenizer) => (config.model.mask_tokenless_ids ? idsWithoutToken(tokenizer, model.config.vocab_size) : undefined);
  const byId = new Map<string, Policy>();
  let source: string;
  if (checkpoint) {
    source = checkpoint.dir;
    const ids = [...new Set(roleToPolicy.values())];
    if (config.policy.map === 'lora') {
      const baseDir = loadedBase ?? join(runDir!, 'base');
      const { model, tokenizer } = loadModel(kernels, baseDir, { frozen: true });
      const prompting = promptingOf(baseDir, tokenizer);
      const logitMask = maskOf(model, tokenizer);
      for (const id of ids) {
        loadModelAdapter(model, join(checkpoint.dir, 'adapters', id), id);
        byId.set(id, new EmbeddedPolicy({ id, model, tokenizer, adapter: id, prompting, logitMask }));
      }
    } else {
      for (const id of ids) {
        const { model, tokenizer } = loadModel(kernels, join(checkpoint.dir, 'policies', id), { frozen: true });
        byId.set(id, new EmbeddedPolicy({ id, model, tokenizer, prompting: promptingOf(join(checkpoint.dir, 'policies', id), tokenizer), logitMask: maskOf(model, tokenizer) }));
      }
    }
  } else {
    const path = config.model.path ?? (runDir && existsSync(join(runDir, 'base', 'config.json')) ? join(runDir, 'base') : undefined);
    if (path === undefined) {
      throw new TroupeError(
        'config',
        runDir
          ? `${runDir} has no checkpoint and no base model yet; train it first (troupe train) or set model.path`
          : 'policy.kind embedded needs weights: give a run folder (troupe eval runs/<name>) or set model.path to a model folder',
      );
    }
    source = path;
    const dir = loadedBase ?? path;
    const { model, tokenizer } = loadModel(kernels, dir, { frozen: true }); // these policies only play
    const policy = new EmbeddedPolicy({ id: 'base', model, tokenizer, prompting: promptingOf(dir, tokenizer), logitMask: maskOf(model, tokenizer) });
    for (const id of new Set(roleToPolicy.values())) byId.set(id, policy);
  }
  return { policyFor: (role) => byId.get(roleToPolicy.get(role)!)!, source };
}
