/**
 * The worker thread of rollout-worker.ts: its own copy of the run's models (frozen, in its own
 * kernels), the team and task source rebuilt from the config, and the rollouts of the steps it
 * is asked for. Every message is answered in the order it came: weights first, then the
 * rollout that must use them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { kernelsFromSpec } from '../../engine/worker/start-worker.js';
import type { LlamaModel } from '../../engine/model/llama-model.js';
import { applyWeights, unpackModel, unpackTokenizer } from '../../engine/worker/model-transfer.js';
import type { Env, TaskSource, Team } from '../../envs/types.js';
import { importTaskModule } from '../../config/read-config.js';
import { taskOf } from '../../config/task-of-config.js';
import { rolloutOptions, taskOptions, teamOptions } from '../../config/runtime-options.js';
import { EmbeddedPolicy } from '../../policy/embedded-policy.js';
import { unpackPromptFormat } from '../../policy/prompt-format-transfer.js';
import type { Policy } from '../../policy/types.js';
import { rollout } from '../../rollout/rollout.js';
import { TroupeError } from '../../util/errors.js';
import { stepTasks } from '../train-step.js';
import type { RolloutWorkerInit, WorkerReply, WorkerRequest } from './rollout-worker-messages.js';

const init = workerData as RolloutWorkerInit;
const port = parentPort!;

async function start(): Promise<(request: WorkerRequest) => Promise<WorkerReply | undefined>> {
  const { config } = init;
  const kernels = await kernelsFromSpec(init.kernels);
  const models: LlamaModel[] = init.models.map((m) => unpackModel(kernels, m));
  const tokenizers = init.tokenizers.map(unpackTokenizer);
  const byId = new Map<string, Policy>();
  for (const p of init.policies) {
    const tokenizer = tokenizers[p.tokenizer]!;
    byId.set(p.id, new EmbeddedPolicy({ id: p.id, model: models[p.model]!, tokenizer, adapter: p.adapter, maxBatch: p.maxBatch, prompting: unpackPromptFormat(p.prompting, tokenizer), logitMask: p.logitMask }));
  }
  const roleToPolicy = new Map(init.roleToPolicy);
  // The config crossed the thread as a copy, without its task: a user task is imported again here.
  const task = config.tasks.module !== undefined ? await importTaskModule(config.tasks.module, config.tasks.module) : taskOf(config);
  const team = task.createTeam(taskOptions(config), teamOptions(config)) as Team<Env>;
  const source = task.createSource(taskOptions(config), config.seed) as TaskSource<Env>;
  const options = rolloutOptions(config);

  return async (request) => {
    if (request.type === 'weights') {
      for (const { model, weights } of request.models) applyWeights(models[model]!, weights);
      return undefined;
    }
    const started = performance.now();
    const counted = countingPolicies(byId, request.id);
    const { samples, episodes } = await rollout({
      team,
      source,
      tasks: stepTasks(request.step, config.rollout.tasks, source.size),
      policyFor: (role) => counted.get(roleToPolicy.get(role)!)!,
      options,
      seed: config.seed,
      step: request.step,
    });
    return { type: 'rollout', id: request.id, rollout: { step: request.step, samples, episodes, rollout_s: (performance.now() - started) / 1000 } };
  };
}

/** The policies, counting their completions into progress messages for rollout `id` (one every progressEveryMs at most). */
function countingPolicies(byId: ReadonlyMap<string, Policy>, id: number): Map<string, Policy> {
  let completions = 0;
  let lastSent = performance.now();
  const counted = new Map<string, Policy>();
  for (const [policyId, inner] of byId) {
    counted.set(policyId, {
      id: inner.id,
      sample: async (requests) => {
        const out = await inner.sample(requests);
        for (const row of out) completions += row.length;
        if (performance.now() - lastSent >= init.progressEveryMs) {
          lastSent = performance.now();
          port.postMessage({ type: 'progress', id, completions } satisfies WorkerReply);
        }
        return out;
      },
    });
  }
  return counted;
}

function errorReply(id: number, error: unknown): WorkerReply {
  const category = error instanceof TroupeError ? error.category : undefined;
  return { type: 'error', id, message: error instanceof Error ? error.message : String(error), ...(category === undefined ? {} : { category }) };
}

// Requests run one at a time, in order (a rollout must see the weights sent before it).
let queue: Promise<unknown> = Promise.resolve();
start().then(
  (handle) => {
    port.on('message', (request: WorkerRequest) => {
      queue = queue.then(async () => {
        try {
          const reply = await handle(request);
          if (reply) port.postMessage(reply);
        } catch (error) {
          port.postMessage(errorReply(request.type === 'rollout' ? request.id : -1, error));
        }
      });
    });
    port.postMessage({ type: 'ready' } satisfies WorkerReply);
  },
  (error) => port.postMessage(errorReply(-1, error)),
);
