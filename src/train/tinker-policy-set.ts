/**
 * The policy map of a `policy.kind: tinker` run: one LoRA training client per policy id on a
 * Tinker-compatible service, all on one base model (the service shares its frozen weights).
 * Each member samples through a TinkerPolicy and updates through a TinkerLearner; after every
 * update the policy switches to a sampler of the new weights, so the trainer loop drives these
 * members exactly like embedded ones (src/train/policy-set.ts). Each adapter is created with
 * the embedded run's seed (adapterSeed) and LoRA shape, so both runs start from the same weights.
 */
import type { ResolvedConfig } from '../config/resolve-config.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import type { PromptFormat } from '../policy/encode-prompt.js';
import { TinkerLearner } from '../policy/tinker-learner.js';
import { TinkerPolicy } from '../policy/tinker-policy.js';
import type { LearnerOptions } from './learner.js';
import { adapterSeed, assignRoles, policyLookup, type PolicySet, type TinkerMember } from './policy-set.js';
import { checkLoraAlpha, connectTinker, samplerOf, serviceBaseModel, serviceContextLength, tinkerLoraConfig } from './tinker-service-setup.js';

export async function buildTinkerPolicySet(options: { config: ResolvedConfig; roles: readonly string[]; tokenizer: Tokenizer; prompting: PromptFormat; learner: LearnerOptions; log: (m: string) => void }): Promise<PolicySet> {
  const { config, roles, tokenizer } = options;
  const client = await connectTinker(config, options.log);
  try {
    const baseModel = await serviceBaseModel(client, config);
    const roleToPolicy = assignRoles(config.policy.map, roles);
    const members = new Map<string, TinkerMember>();
    const lora = tinkerLoraConfig(config);
    const contextLength = await serviceContextLength(client, baseModel);
    // A KL penalty's reference is the base model, as for embedded LoRA learners: a LoRA client
    // that is never trained (B = 0) scores a whole batch in one forward.
    const reference = options.learner.loss.klCoef !== 0 ? await client.createLoraModel(baseModel, { ...lora, seed: adapterSeed(config.seed, 'kl-reference') }) : undefined;
    for (const id of new Set(roleToPolicy.values())) {
      const create = () => client.createLoraModel(baseModel, { ...lora, seed: adapterSeed(config.seed, id) });
      const model = await create();
      if (members.size === 0) checkLoraAlpha(await model.info(), config, options.log);
      const policy = new TinkerPolicy({ id, tokenizer, prompting: options.prompting, contextLength, sampler: await samplerOf(client, await model.saveForSampler()) });
      const learner = new TinkerLearner({ policyId: id, model, options: { ...options.learner, lossReduction: config.policy.tinker!.loss_reduction }, reference });
      const useSampler = async (sampler: string) => policy.useSampler(await samplerOf(client, sampler));
      members.set(id, {
        backend: 'tinker',
        id,
        roles: roles.filter((r) => roleToPolicy.get(r) === id),
        policy,
        learner,
        useSampler,
        restore: async (path) => {
          const fresh = await create();
          try {
            await fresh.loadWeights(path, true);
            await useSampler(await fresh.saveForSampler());
          } catch (error) {
            await fresh.unload().catch(() => undefined);
            throw error;
          }
          const previous = learner.model;
          learner.useModel(fresh);
          await previous.unload();
        },
        update: async (sequences, lr) => {
          const { metrics, sampler } = await learner.update(sequences, lr);
          await useSampler(sampler);
          return metrics;
        },
      });
    }
    options.log(`training ${members.size} LoRA client(s) of rank ${lora.rank} on ${baseModel} at ${client.baseUrl}`);
    return { members, roleToPolicy, policyFor: policyLookup(roleToPolicy, members), dispose: () => client.close() };
  } catch (error) {
    client.close();
    throw error;
  }
}
