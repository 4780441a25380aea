/**
 * Joint sampling (MAGRPO, SEEDS.md section 2; docs/magrpo.md). The roles act in parallel.
 * Each task is a tree of *nodes*; a node is one turn's situation. At a node every role builds
 * its prompt from the node's env and samples G completions (one request with n = G, batched
 * across every node of the depth in one call per policy). Joint actions combine one completion
 * per role (`aligned`: G of them, `cross`: G^n); each is applied to its OWN clone of the node's
 * env (every role's step in role order) and scored with the joint reward: the team's global
 * reward of the resulting state. Below the turn limit, a joint action whose env is not done
 * becomes a child node (all of them, only the best by joint reward, or one drawn uniformly:
 * `expand`); the child's
 * prompts are the roles' prompts of that env, so the task's external transition (test
 * feedback, advice) reaches the next turn through the env.
 *
 * Once every tree is complete, returns R = r + gamma * mean(R of the child's joint actions)
 * are computed bottom-up (src/algo/magrpo-returns.ts) and each response is credited with the
 * return of its joint action (aligned) or the sum / mean over the joint actions containing it
 * (cross; src/algo/magrpo-credit.ts). A sample's `score` is that credit; its group is the
 * (task, node, role): G completions of one prompt.
 *
 * Sample rewards (for logs and per-role metrics, not for the advantage): local = the role's
 * local reward in the joint action, global = the joint reward, total = local + alpha * global;
 * averaged over the joint actions containing the response in cross mode. A role whose step is
 * skipped because an earlier role's step ended the episode gets local 0 there.
 */
import { creditResponses } from '../algo/magrpo-credit.js';
import { jointActions } from '../algo/magrpo-joint-actions.js';
import { jointReturns, type JointTreeNode } from '../algo/magrpo-returns.js';
import { mixReward } from '../algo/mix-reward.js';
import type { Env, TurnContext } from '../envs/types.js';
import type { Completion } from '../policy/types.js';
import { argmax } from '../util/argmax.js';
import { invariant, TroupeError } from '../util/errors.js';
import { deriveSeed, Rng } from '../util/rng.js';
import { parseCompletion, stepRole, type ParsedCompletion, type StepResult } from './apply-completion.js';
import { buildSample } from './build-sample.js';
import { countFailures, newEpisodeStats } from './episode-stats.js';
import { ROOT_PATH, childPath, jointGroupKey } from './joint-node-path.js';
import { MAX_NODES_PER_TASK, maxNodesPerTask, resolveJointOptions } from './joint-options.js';
import { makeRequest, samplePolicies, type PolicyCall } from './sample-policies.js';
import type { EpisodeStats, JointOptions, JointReward, RolloutInput, RolloutResult, Sample } from './types.js';

/** A node whose prompts are built but whose completions are not sampled yet. */
interface PendingNode<E extends Env> {
  readonly tree: TaskTree<E>;
  readonly path: string;
  readonly ctx: TurnContext;
  readonly env: E;
  readonly prompts_N: string[];
  /** The parent node and the joint action this node continues (undefined for the root). */
  readonly parent?: { node: JointNode<E>; jointAction: number };
}

/** One joint action applied to its own env clone. */
interface JointOutcome<E extends Env> {
  readonly env: E;
  /** Per role: its step, or undefined when an earlier role's step ended the episode. */
  readonly results_N: Array<StepResult | undefined>;
}

interface JointNode<E extends Env> extends PendingNode<E>, JointTreeNode {
  readonly completions_N_G: Completion[][];
  readonly reads_N_G: ParsedCompletion[][];
  readonly outcomes_J: JointOutcome<E>[];
  readonly rewards_J: number[];
  readonly children_J: Array<JointNode<E> | undefined>;
  /** `expand: sampled`: the joint action drawn to continue (also at the last turn, for the episode stats). */
  readonly drawn?: number;
}

interface TaskTree<E extends Env> {
  readonly stats: EpisodeStats;
  /** Every node of the task, parents before children. */
  readonly nodes: JointNode<E>[];
}

export async function jointRollout<E extends Env>(input: RolloutInput<E>): Promise<RolloutResult> {
  const { team, options } = input;
  const g = options.k;
  const joint = resolveJointOptions(options.joint);
  if (team.order !== 'parallel') {
    throw new TroupeError(
      'config',
      `team.order: rollout mode joint (MAGRPO) plays the roles in parallel, got ${JSON.stringify(team.order)}; set team.order: parallel`,
    );
  }
  const roles = team.roles;
  const responses_J_N = jointActions(joint.joint, roles.length, g);
  const bound = maxNodesPerTask(responses_J_N.length, joint.expand, team.maxTurns);
  if (bound > MAX_NODES_PER_TASK) {
    throw new TroupeError(
      'config',
      `magrpo.expand: all with ${responses_J_N.length} joint actions per node over ${team.maxTurns} turns makes more than ` +
        `${MAX_NODES_PER_TASK} nodes per task; use magrpo.expand: best, a smaller rollout.k or fewer team.max_turns`,
    );
  }

  const promptsAt = (env: E, ctx: TurnContext): string[] => roles.map((role) => role.prompt(env, ctx));

  const playJointAction = async (node: PendingNode<E>, reads_N_G: ParsedCompletion[][], responses_N: readonly number[]) => {
    const env = node.env.clone();
    // A clone must prompt exactly like its original, or the group's comparison is unfair.
    invariant(
      promptsAt(env, node.ctx).every((p, i) => p === node.prompts_N[i]),
      `${env.taskId} node ${node.path}: the prompts of a cloned env differ from the original's`,
    );
    const results_N: Array<StepResult | undefined> = [];
    for (const [i, role] of roles.entries()) {
      results_N.push(env.done ? undefined : await stepRole(team, role, env, reads_N_G[i]![responses_N[i]!]!, node.ctx));
    }
    return { env, results_N };
  };

  // Seeded apart from the rewards: a uniform draw is the agents' own joint play.
  const drawJointAction = (node: PendingNode<E>, count: number): number =>
    Rng.derive(input.seed, input.step, node.env.taskId, node.ctx.turn, node.path, 'continue').int(count);

  const playNode = async (node: PendingNode<E>, completions_N_G: Completion[][]): Promise<JointNode<E>> => {
    const reads_N_G = completions_N_G.map((completions_G, i) => completions_G.map((c) => parseCompletion(roles[i]!, c)));
    const outcomes_J = await Promise.all(responses_J_N.map((responses_N) => playJointAction(node, reads_N_G, responses_N)));
    const rewards_J = outcomes_J.map((o, j) => team.globalReward(o.env) + localPart(joint.reward, reads_N_G, responses_J_N[j]!, o.results_N));
    const played: JointNode<E> = {
      ...node,
      completions_N_G,
      reads_N_G,
      outcomes_J,
      rewards_J,
      children_J: rewards_J.map(() => undefined),
      ...(joint.expand === 'sampled' && { drawn: drawJointAction(node, rewards_J.length) }),
    };
    if (node.parent) node.parent.node.children_J[node.parent.jointAction] = played;
    node.tree.nodes.push(played);
    return played;
  };

  const childrenOf = (node: JointNode<E>): PendingNode<E>[] => {
    const turn = node.ctx.turn + 1;
    if (turn >= team.maxTurns) return [];
    const continued = joint.expand === 'best' ? argmax(node.rewards_J) : node.drawn;
    const ctx: TurnContext = { turn, maxTurns: team.maxTurns };
    return node.outcomes_J.flatMap((outcome, j) => {
      if (outcome.env.done || (continued !== undefined && j !== continued)) return [];
      const path = childPath(node.path, j);
      return [{ tree: node.tree, path, ctx, env: outcome.env, prompts_N: promptsAt(outcome.env, ctx), parent: { node, jointAction: j } }];
    });
  };

  const trees: TaskTree<E>[] = [];
  let frontier: PendingNode<E>[] = [];
  for (const index of input.tasks) {
    const env = input.source.make(index, input.split ?? 'train');
    const tree: TaskTree<E> = { stats: newEpisodeStats(env.taskId, 0, roles.map((r) => r.name)), nodes: [] };
    trees.push(tree);
    const ctx: TurnContext = { turn: 0, maxTurns: team.maxTurns };
    if (!env.done && team.maxTurns > 0) frontier.push({ tree, path: ROOT_PATH, ctx, env, prompts_N: promptsAt(env, ctx) });
  }

  while (frontier.length > 0) {
    // One batched call per policy for every (node, role) of this depth, across all tasks.
    const calls: PolicyCall[] = frontier.flatMap((node) =>
      roles.map((role, i) => ({
        policy: input.policyFor(role.name),
        request: makeRequest(
          node.prompts_N[i]!,
          g,
          deriveSeed(input.seed, input.step, node.env.taskId, node.ctx.turn, role.name, node.path),
          options,
        ),
      })),
    );
    const completions = await samplePolicies(calls);
    const n = roles.length;
    const played = await Promise.all(frontier.map((node, x) => playNode(node, completions.slice(x * n, (x + 1) * n))));
    frontier = played.flatMap(childrenOf);
  }

  const samples: Sample[] = [];
  for (const tree of trees) samples.push(...scoreTree(tree, joint, responses_J_N, g, input));
  return { samples, episodes: trees.map((t) => t.stats) };
}

/**
 * What `magrpo.reward` adds to the team reward of the state: nothing (`global`); the local
 * rewards of the joint action's failed responses, i.e. each role's own penalty for a broken
 * answer (`global+failures`: otherwise a broken answer that leaves the state unchanged can
 * score above a bad move, and RL drifts into them); or every role's local reward
 * (`global+local`). Roles that did not step (the episode ended first) add nothing.
 */
function localPart(
  reward: JointReward,
  reads_N_G: readonly ParsedCompletion[][],
  responses_N: readonly number[],
  results_N: ReadonlyArray<StepResult | undefined>,
): number {
  if (reward === 'global') return 0;
  let sum = 0;
  responses_N.forEach((g, i) => {
    if (reward === 'global+local' || !reads_N_G[i]![g]!.parsed.ok) sum += results_N[i]?.outcome.local ?? 0;
  });
  return sum;
}

/** Computes the tree's returns and credits, records its samples and fills its episode stats. */
function scoreTree<E extends Env>(
  tree: TaskTree<E>,
  joint: JointOptions,
  responses_J_N: readonly (readonly number[])[],
  g: number,
  input: RolloutInput<E>,
): Sample[] {
  const { team } = input;
  const root = tree.nodes[0];
  if (!root) return [];
  const returnsOf = jointReturns(root, joint.gamma);
  const samples: Sample[] = [];
  for (const node of tree.nodes) {
    const returns_J = returnsOf.get(node)!;
    const credits_N_G = creditResponses({ responses_J_N, returns_J, g, rule: joint.credit });
    tree.stats.turns = Math.max(tree.stats.turns, node.ctx.turn + 1);
    team.roles.forEach((role, i) => {
      const group = jointGroupKey(node.env.taskId, node.path, role.name);
      for (let response = 0; response < g; response++) {
        const read = node.reads_N_G[i]![response]!;
        const result = creditedResult(node, i, response, responses_J_N, team.alpha, read);
        countFailures(tree.stats, read, result);
        const sample = buildSample({
          taskId: node.env.taskId,
          turn: node.ctx.turn,
          role: role.name,
          group,
          branch: response,
          prompt: node.prompts_N[i]!,
          completion: node.completions_N_G[i]![response]!,
          result,
          policyId: input.policyFor(role.name).id,
        });
        sample.score = credits_N_G[i]![response]!;
        sample.node = node.path;
        samples.push(sample);
      }
    });
  }
  followBestPath(tree, root, returnsOf, team.alpha, team.roles.map((r) => r.name));
  return samples;
}

/**
 * The reward parts and failure of one response, over the joint actions that contain it (one in
 * aligned mode): parts averaged; the failure is the first step failure, else the parse failure.
 */
function creditedResult<E extends Env>(
  node: JointNode<E>,
  agent: number,
  response: number,
  responses_J_N: readonly (readonly number[])[],
  alpha: number,
  read: ParsedCompletion,
): StepResult {
  let local = 0;
  let global = 0;
  let count = 0;
  let failure: string | undefined;
  responses_J_N.forEach((responses_N, j) => {
    if (responses_N[agent] !== response) return;
    const result = node.outcomes_J[j]!.results_N[agent];
    local += result?.outcome.local ?? 0;
    global += node.rewards_J[j]!;
    count += 1;
    failure ??= result?.failure;
  });
  if (failure === undefined && !read.parsed.ok) failure = read.generationError ? read.parsed.reason : `parse: ${read.parsed.reason}`;
  return { outcome: { local: local / count }, reward: mixReward(local / count, global / count, alpha), failure };
}

/**
 * Episode stats follow the path of highest-return joint actions from the root (ties: lowest
 * index), or with `expand: sampled` the drawn ones: success is that path's final state's, and
 * each role's return sums its total reward along it.
 */
function followBestPath<E extends Env>(
  tree: TaskTree<E>,
  root: JointNode<E>,
  returnsOf: Map<JointTreeNode, number[]>,
  alpha: number,
  roleNames: readonly string[],
): void {
  let node: JointNode<E> | undefined = root;
  while (node) {
    const j: number = node.drawn ?? argmax(returnsOf.get(node)!);
    const outcome: JointOutcome<E> = node.outcomes_J[j]!;
    roleNames.forEach((name, i) => {
      tree.stats.returns[name]! += mixReward(outcome.results_N[i]?.outcome.local ?? 0, node!.rewards_J[j]!, alpha).total;
    });
    tree.stats.success = outcome.env.success;
    node = node.children_J[j];
  }
}

