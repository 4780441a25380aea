/**
 * The policy map of a `policy.kind: tinker` run: one LoRA training client per policy id on a
 * Tinker-compatible service, all on one base model (the service shares its frozen weights).
 * Each member samples through a TinkerPolicy and updates through a TinkerLearner; after every
 * update the policy switches to a sampler of the new weights, so the trainer loop drives these
 * members exactly like embedded ones (src/train/policy-set.ts).
 */
import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { ResolvedConfig } from '../config/resolve-config.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { TinkerLearner } from '../policy/tinker-learner.js';
import { TinkerPolicy } from '../policy/tinker-policy.js';
import { TinkerClient, TinkerSampler } from '../tinker/tinker-client.js';
import { TroupeError } from '../util/errors.js';
import { deriveSeed } from '../util/rng.js';
import type { LearnerOptions } from './learner.js';
import { assignRoles, policyLookup, type PolicySet, type TinkerMember } from './policy-set.js';

export const TINKER_API_KEY_ENV = 'TINKER_API_KEY';

/** The API key from the environment only (a key in a config file ends up in shared run folders). */
export function tinkerApiKey(env: NodeJS.ProcessEnv = process.env): string {
  const key = env[TINKER_API_KEY_ENV];
  if (key === undefined || key.trim() === '') {
    throw new TroupeError('config', `policy.kind tinker needs the service's API key in the ${TINKER_API_KEY_ENV} environment variable (keys look like tml-...); export ${TINKER_API_KEY_ENV}=tml-... and run again (troupe serve --tinker accepts any tml- key)`);
  }
  return key.trim();
}

/** The base model's name on the service: policy.tinker.base_model, else model.path. */
export function tinkerBaseModel(config: ResolvedConfig): string {
  const name = config.policy.tinker?.base_model ?? config.model.path;
  if (name === undefined) throw new TroupeError('config', 'policy.tinker.base_model: which base model should the service train? Set policy.tinker.base_model or model.path (a hub id or a folder the service serves)');
  return name;
}

export async function buildTinkerPolicySet(options: { config: ResolvedConfig; roles: readonly string[]; tokenizer: Tokenizer; learner: LearnerOptions; log: (m: string) => void }): Promise<PolicySet> {
  const { config, roles, tokenizer } = options;
  const section = config.policy.tinker!;
  const client = await TinkerClient.connect({ baseUrl: section.base_url, apiKey: tinkerApiKey(), maxRetries: section.max_retries });
  try {
    const baseModel = await serviceBaseModel(client, config);
    const roleToPolicy = assignRoles(config.policy.map, roles);
    const members = new Map<string, TinkerMember>();
    const rank = section.rank ?? config.model.lora.r;
    for (const id of new Set(roleToPolicy.values())) {
      const model = await client.createLoraModel(baseModel, { rank, seed: deriveSeed(config.model.seed ?? config.seed, 'lora', id) });
      const policy = new TinkerPolicy({ id, tokenizer, sampler: await samplerOf(client, await model.saveForSampler()) });
      const learner = new TinkerLearner({ policyId: id, model, options: options.learner });
      const useSampler = async (sampler: string) => policy.useSampler(await samplerOf(client, sampler));
      members.set(id, {
        backend: 'tinker',
        id,
        roles: roles.filter((r) => roleToPolicy.get(r) === id),
        policy,
        learner,
        useSampler,
        update: async (sequences, lr) => {
          const { metrics, sampler } = await learner.update(sequences, lr);
          await useSampler(sampler);
          return metrics;
        },
      });
    }
    options.log(`training ${members.size} LoRA client(s) of rank ${rank} on ${baseModel} at ${section.base_url}`);
    return { members, roleToPolicy, policyFor: policyLookup(roleToPolicy, members), dispose: () => client.close() };
  } catch (error) {
    client.close();
    throw error;
  }
}

/**
 * The base model's name as the service lists it. policy.tinker.base_model is taken as given;
 * model.path is too when the service lists it (a hub id), and a local folder is matched by its
 * folder name (what `troupe serve --tinker --model FOLDER` serves it as).
 */
async function serviceBaseModel(client: TinkerClient, config: ResolvedConfig): Promise<string> {
  const name = tinkerBaseModel(config);
  if (config.policy.tinker?.base_model !== undefined) return name;
  const listed = (await client.capabilities()).map((m) => m.model_name);
  if (listed.includes(name)) return name;
  const folderName = existsSync(name) ? basename(resolve(name)) : undefined;
  if (folderName !== undefined && listed.includes(folderName)) return folderName;
  throw new TroupeError('config', `model.path: the service at ${client.baseUrl} does not serve ${JSON.stringify(name)} (it lists ${listed.join(', ') || 'no models'}); set policy.tinker.base_model to one of those`);
}

/** A sampler of saved weights: a sampling session id, or a tinker:// path to open one on. */
async function samplerOf(client: TinkerClient, saved: string): Promise<TinkerSampler> {
  return saved.startsWith('tinker://') ? client.createSampler({ modelPath: saved }) : new TinkerSampler(client, saved);
}
