/**
 * The policies of a `policy.kind: tinker` config that only play (troupe eval, troupe rollout):
 * sampling through the service, with prompts tokenised here as in training.
 *
 * - a run folder with a checkpoint: each policy's saved weights (the tinker:// path in
 *   state.json) are loaded into a fresh training client and sampled from a
 *   save_weights_for_sampler snapshot of it (load_weights works on every Tinker service);
 * - otherwise the base model itself (a sampling session on `base_model`), for every role.
 *
 * Requests: per policy create_model + load_weights + save_weights_for_sampler once, then one
 * asample per prompt (K samples in one request), as in training. `onWait` hears each minute one
 * request is still pending (`still waiting for asample request ...`), as training's log does.
 */
import { join } from 'node:path';
import type { ResolvedConfig } from '../config/resolve-config.js';
import { readJsonFile } from '../engine/io/checkpoint.js';
import { TinkerPolicy } from '../policy/tinker-policy.js';
import type { Policy } from '../policy/types.js';
import { TroupeError } from '../util/errors.js';
import { listCheckpoints, type CheckpointState } from './checkpoint-store.js';
import type { PlayingPoliciesOptions } from './playing-policies.js';
import { assignRoles } from './policy-set.js';
import { connectTinker, samplerOf, serviceBaseModel, serviceContextLength, tinkerLoraConfig, tinkerPrompting } from './tinker-service-setup.js';

export async function tinkerPlayingPolicies(
  config: ResolvedConfig,
  roles: readonly string[],
  options: PlayingPoliciesOptions = {},
): Promise<{ policyFor: (role: string) => Policy; source: string; dispose: () => void }> {
  const { tokenizer, prompting } = tinkerPrompting(config);
  const roleToPolicy = assignRoles(config.policy.map, roles);
  const checkpoint = options.runDir ? listCheckpoints(options.runDir).at(-1) : undefined;
  const client = await connectTinker(config, options.onWait);
  try {
    const baseModel = await serviceBaseModel(client, config);
    const contextLength = await serviceContextLength(client, baseModel);
    const byId = new Map<string, Policy>();
    if (checkpoint) {
      const state = readJsonFile(join(checkpoint.dir, 'state.json')) as CheckpointState;
      for (const id of new Set(roleToPolicy.values())) {
        const saved = state.policies?.[id];
        if (saved?.kind !== 'tinker') {
          throw new TroupeError('checkpoint', `${checkpoint.dir}: policy '${id}' ${saved === undefined ? 'is not in state.json' : `was saved by an embedded run (${saved.kind})`}; evaluate it with the policy.kind and policy.map it was trained with`);
        }
        const model = await client.createLoraModel(baseModel, tinkerLoraConfig(config));
        await model.loadWeights(saved.path, false);
        byId.set(id, new TinkerPolicy({ id, tokenizer, prompting, contextLength, sampler: await samplerOf(client, await model.saveForSampler()) }));
      }
    } else {
      const base = new TinkerPolicy({ id: 'base', tokenizer, prompting, contextLength, sampler: await client.createSampler({ baseModel }) });
      for (const id of new Set(roleToPolicy.values())) byId.set(id, base);
    }
    const source = checkpoint ? `${checkpoint.dir} on the Tinker service at ${client.baseUrl}` : `${baseModel} on the Tinker service at ${client.baseUrl}`;
    return { policyFor: (role) => byId.get(roleToPolicy.get(role)!)!, source, dispose: () => client.close() };
  } catch (error) {
    client.close();
    throw error;
  }
}
