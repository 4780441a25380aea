/**
 * The base model a run starts from: loaded from `model.path`, or initialised and taught by
 * the warm start on the scripted player's demonstrations. A warm-started base is cached in
 * the run folder (base/ or base-<policy>/) with the settings that produced it, and reused
 * when the settings match (a resumed run, or a rerun after changing only RL settings).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../engine/io/atomic-write.js';
import { loadModel, saveModel } from '../engine/io/model-checkpoint.js';
import type { Kernels } from '../engine/kernels/types.js';
import type { LlamaConfig } from '../engine/model/llama-config.js';
import { LlamaModel } from '../engine/model/llama-model.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import type { Env, ScriptedResponder, TaskSource, Team } from '../envs/types.js';
import type { RolloutOptions } from '../rollout/types.js';
import { TroupeError } from '../util/errors.js';
import { collectDemonstrations } from './demonstrations.js';
import { Learner, type LearnerOptions } from './learner.js';
import { warmStart, type WarmStartStep } from './warm-start.js';

const KEY_FILE = 'warm-start.json';

export interface WarmStartSettings {
  readonly enabled: boolean;
  readonly skill: number;
  readonly episodes: number;
  readonly epochs: number;
  readonly lr: number;
  readonly batchTokens: number;
  readonly warmupSteps: number;
}

export interface BaseModelRequest<E extends Env> {
  readonly kernels: Kernels;
  readonly tokenizer: Tokenizer;
  readonly config: LlamaConfig;
  readonly seed: number;
  /** Folder of the cached base (runDir/base). */
  readonly dir: string;
  /** Everything the demonstrations depend on, hashed into the cache key. */
  readonly keyMaterial: unknown;
  readonly warmStart: WarmStartSettings;
  readonly team: Team<E>;
  /** Roles whose demonstrations this model learns from (all roles for a shared base). */
  readonly roles: readonly string[];
  readonly source: TaskSource<E>;
  readonly scripted: ScriptedResponder;
  readonly rollout: RolloutOptions;
  readonly learner: LearnerOptions;
  readonly onStep?: (step: WarmStartStep) => void;
  /** Ends the warm start early with a WarmStartInterrupted (Ctrl-C); nothing is cached then. */
  readonly shouldStop?: () => boolean;
  readonly log?: (message: string) => void;
}

export function cacheKey(material: unknown): string {
  return createHash('sha256').update(JSON.stringify(material)).digest('hex').slice(0, 16);
}

export async function prepareBaseModel<E extends Env>(request: BaseModelRequest<E>): Promise<LlamaModel> {
  const key = cacheKey({ material: request.keyMaterial, config: request.config, warmStart: request.warmStart, roles: request.roles, seed: request.seed });
  const keyPath = join(request.dir, KEY_FILE);
  if (existsSync(keyPath) && (JSON.parse(readFileSync(keyPath, 'utf8')) as { key?: string }).key === key) {
    request.log?.(`using the cached base model in ${request.dir}`);
    return loadModel(request.kernels, request.dir).model;
  }
  const model = LlamaModel.create(request.kernels, request.config, { seed: request.seed });
  if (request.warmStart.enabled) {
    const ws = request.warmStart;
    request.log?.(`warm start: ${ws.episodes} demonstration episodes at skill ${ws.skill}, ${ws.epochs} epoch(s)`);
    const demos = (
      await collectDemonstrations({
        team: request.team,
        source: request.source,
        scripted: request.scripted,
        skill: ws.skill,
        episodes: ws.episodes,
        rollout: request.rollout,
        tokenizer: request.tokenizer,
        seed: request.seed,
        maxTokens: request.config.max_position_embeddings,
      })
    ).filter((d) => request.roles.includes(d.role));
    if (demos.length === 0) throw new TroupeError('config', `the warm start found no demonstrations for role(s) ${request.roles.join(', ')}`);
    // Supervised steps never use the KL penalty (there is no reference yet), so a run with
    // train.kl_coef > 0 must not hand its coefficient to the warm-start learner.
    const options = { ...request.learner, loss: { ...request.learner.loss, klCoef: 0 } };
    const learner = new Learner({ policyId: 'warm-start', model, options });
    try {
      const stop = request.shouldStop === undefined ? {} : { shouldStop: request.shouldStop };
      await warmStart(learner, demos, { epochs: ws.epochs, lr: ws.lr, batchTokens: ws.batchTokens, warmupSteps: ws.warmupSteps, seed: request.seed, ...stop }, request.onStep);
    } finally {
      learner.dispose();
    }
  }
  saveModel(request.dir, model, request.tokenizer, { overwrite: true });
  writeFileAtomic(keyPath, `${JSON.stringify({ key, warm_start: request.warmStart }, null, 2)}\n`);
  return model;
}
