/**
 * Tree sampling (AT-GRPO, SEEDS.md section 1). Each turn, each role forms one node per active
 * task: one prompt, K branches. Every branch acts on its OWN clone of the node's env and is
 * scored there (total = local + alpha * global); the highest total wins (ties: lowest branch
 * index) and the winner's clone BECOMES the task's env, so the next role and the next turn act
 * on exactly the state that was chosen. The losing clones are dropped, never reused: nothing
 * overwrites the branches before they are scored.
 *
 * `continueWith: 'sampled'` continues from a branch drawn uniformly instead of the best: the
 * episode then follows the policy's own play, so the later nodes (and their groups of K) are
 * the states the policy reaches, not those of a search much stronger than it. A number p in
 * [0, 1] mixes the two: each node draws with probability p and continues its best otherwise,
 * so the search's path sometimes steps where the policy would and has to recover from there.
 *
 * Sequential turns: roles act one after another, each on the env its predecessor chose, so a
 * role's prompt shows the actions taken before it in the same turn.
 * Parallel turns: every role builds its prompt from the state at the start of the turn and
 * its K branches are scored on clones of that state. The chosen actions are then applied to
 * the task's env in role order by calling role.step again with the chosen parsed action (the
 * parse result is reused, the text is not re-read). Sample rewards are the branch scores
 * against the start-of-turn state; if an earlier role's action ends the episode, later roles'
 * chosen actions are not applied.
 */
import type { Env, Role, TurnContext } from '../envs/types.js';
import type { Completion, Policy } from '../policy/types.js';
import { argmax } from '../util/argmax.js';
import { invariant, TroupeError } from '../util/errors.js';
import { deriveSeed, Rng } from '../util/rng.js';
import { parseCompletion, stepRole, type ParsedCompletion, type StepResult } from './apply-completion.js';
import { buildSample, treeGroupKey } from './build-sample.js';
import { countFailures, newEpisodeStats } from './episode-stats.js';
import { makeRequest, samplePolicies, type PolicyCall } from './sample-policies.js';
import type { ContinueMode, EpisodeStats, RolloutInput, RolloutOptions, RolloutResult, Sample } from './types.js';

interface TaskState<E extends Env> {
  env: E;
  readonly stats: EpisodeStats;
}

/** One (task, turn, role) node: its prompt and the env the prompt was built from. */
interface Node<E extends Env> {
  readonly state: TaskState<E>;
  readonly role: Role<E, any>;
  readonly policy: Policy;
  readonly prompt: string;
  readonly env: E;
}

interface Branch<E extends Env> {
  readonly env: E;
  readonly read: ParsedCompletion;
  readonly result: StepResult;
}

export async function treeRollout<E extends Env>(input: RolloutInput<E>): Promise<RolloutResult> {
  const { team, options } = input;
  const roleNames = team.roles.map((r) => r.name);
  const states: TaskState<E>[] = input.tasks.map((index) => {
    const env = input.source.make(index, input.split ?? 'train');
    return { env, stats: newEpisodeStats(env.taskId, 0, roleNames) };
  });
  checkContinueSetting(options.continueWith, roleNames);
  const samples: Sample[] = [];

  /** Samples K branches for each node in one batched call, scores them, records samples. */
  const expand = async (nodes: Node<E>[], ctx: TurnContext): Promise<Branch<E>[]> => {
    const calls: PolicyCall[] = nodes.map((node) => ({
      policy: node.policy,
      request: makeRequest(
        node.prompt,
        options.k,
        deriveSeed(input.seed, input.step, node.env.taskId, ctx.turn, node.role.name),
        options,
      ),
    }));
    const completions_N_K = await samplePolicies(calls);
    // Branches are stepped concurrently (roles may await the sandbox); samples are recorded
    // afterwards in node order, so the output does not depend on which run finished first.
    const branches_N_K = await Promise.all(nodes.map((node, n) => stepBranches(node, completions_N_K[n]!, ctx)));
    return nodes.map((node, n) => recordNode(node, completions_N_K[n]!, branches_N_K[n]!, ctx));
  };

  const stepBranches = (node: Node<E>, completions_K: Completion[], ctx: TurnContext): Promise<Branch<E>[]> =>
    Promise.all(
      completions_K.map(async (completion): Promise<Branch<E>> => {
        const env = node.env.clone();
        // A clone must behave exactly like its original; a prompt that differs on the clone
        // means clone() or prompt() is broken and the group's comparison would be unfair.
        invariant(
          node.role.prompt(env, ctx) === node.prompt,
          `${node.env.taskId} turn ${ctx.turn} ${node.role.name}: the prompt of a cloned env differs from the original's`,
        );
        const read = parseCompletion(node.role, completion);
        return { env, read, result: await stepRole(team, node.role, env, read, ctx) };
      }),
    );

  const recordNode = (node: Node<E>, completions_K: Completion[], branches_K: Branch<E>[], ctx: TurnContext): Branch<E> => {
    const drawProbability = drawProbabilityOf(continueModeOf(options.continueWith, node.role.name));
    const rng = drawProbability > 0 ? Rng.derive(input.seed, input.step, node.env.taskId, ctx.turn, node.role.name, 'continue') : undefined;
    // p = 1 takes no coin, so `sampled` draws the same branches as before mixing existed.
    const draws = rng !== undefined && (drawProbability >= 1 || rng.next() < drawProbability);
    const chosenIndex = draws ? rng.int(branches_K.length) : argmax(branches_K.map((b) => b.result.reward.total));
    const group = treeGroupKey(node.env.taskId, ctx.turn, node.role.name);
    branches_K.forEach((b, i) => {
      countFailures(node.state.stats, b.read, b.result);
      samples.push(
        buildSample({
          taskId: node.env.taskId,
          turn: ctx.turn,
          role: node.role.name,
          group,
          branch: i,
          chosen: i === chosenIndex,
          prompt: node.prompt,
          completion: completions_K[i]!,
          result: b.result,
          policyId: node.policy.id,
        }),
      );
    });
    const chosen = branches_K[chosenIndex]!;
    node.state.stats.returns[node.role.name]! += chosen.result.reward.total;
    return chosen;
  };

  const nodeFor = (state: TaskState<E>, role: Role<E, any>, ctx: TurnContext): Node<E> => ({
    state,
    role,
    policy: input.policyFor(role.name),
    prompt: role.prompt(state.env, ctx),
    env: state.env,
  });

  for (let turn = 0; turn < team.maxTurns; turn++) {
    const ctx: TurnContext = { turn, maxTurns: team.maxTurns };
    const playing = states.filter((s) => !s.env.done);
    if (playing.length === 0) break;
    for (const s of playing) s.stats.turns = turn + 1;

    if (team.order === 'sequential') {
      for (const role of team.roles) {
        const nodes = states.filter((s) => !s.env.done).map((s) => nodeFor(s, role, ctx));
        const chosen = await expand(nodes, ctx);
        nodes.forEach((node, n) => {
          node.state.env = chosen[n]!.env;
        });
      }
    } else {
      const nodes = playing.flatMap((s) => team.roles.map((role) => nodeFor(s, role, ctx)));
      const chosen = await expand(nodes, ctx);
      // Apply the chosen actions to each task's env in role order (nodes are task-major).
      for (const [n, node] of nodes.entries()) {
        if (node.state.env.done) continue;
        await stepRole(team, node.role, node.state.env, chosen[n]!.read, ctx);
      }
    }
  }

  for (const s of states) s.stats.success = s.env.success;
  return { samples, episodes: states.map((s) => s.stats) };
}


function continueModeOf(setting: RolloutOptions['continueWith'], role: string): ContinueMode {
  return typeof setting === 'object' ? (setting[role] ?? 'best') : (setting ?? 'best');
}

/** How often a node continues from a drawn branch instead of its best: best 0, sampled 1, or the number. */
function drawProbabilityOf(mode: ContinueMode): number {
  return mode === 'best' ? 0 : mode === 'sampled' ? 1 : mode;
}

/** Checked once per rollout, not per node: numbers in [0, 1], roles of this team. */
function checkContinueSetting(setting: RolloutOptions['continueWith'], roleNames: readonly string[]): void {
  const modes = typeof setting === 'object' ? Object.values(setting) : [setting ?? 'best'];
  for (const mode of modes) {
    if (typeof mode === 'number' && !(mode >= 0 && mode <= 1)) {
      throw new TroupeError('config', `rollout.continue: a number must lie in [0, 1] (the fraction of nodes that continue from a drawn branch), got ${mode}`);
    }
  }
  if (typeof setting !== 'object') return;
  const unknown = Object.keys(setting).filter((name) => !roleNames.includes(name));
  if (unknown.length > 0) {
    throw new TroupeError('config', `rollout.continue: no role ${unknown.join(', ')} in this team; its roles are ${roleNames.join(', ')}`);
  }
}
