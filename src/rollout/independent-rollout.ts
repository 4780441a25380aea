/**
 * Independent sampling (single-agent GRPO baseline): K whole episodes per task, each with its
 * own env, one completion per prompt. The group of a (task, role) spans its K episodes and a
 * sample's score is its episode's return for that role (the sum of the role's reward.total
 * over the episode), so every step of a good episode is reinforced together.
 *
 * After the first turn the K episodes of a task are in different states, so the prompts of
 * one group DIFFER: the group compares answers to different questions. That is the weakness
 * tree sampling (tree-rollout.ts) fixes; this mode exists as the baseline to measure it.
 *
 * Turn order works as in the tree: sequential roles act one after another on the episode's
 * env; in parallel turns every role's prompt is built from the start-of-turn state and the
 * actions are applied in role order. If an earlier role's action ends the episode, the later
 * roles' completions of that turn are not applied and produce no sample (there is no reward
 * to give them); tree mode instead scores them against the start-of-turn state.
 */
import type { Env, Role, TurnContext } from '../envs/types.js';
import type { Completion, Policy } from '../policy/types.js';
import { deriveSeed } from '../util/rng.js';
import { parseCompletion, stepRole } from './apply-completion.js';
import { buildSample, independentGroupKey } from './build-sample.js';
import { countFailures, newEpisodeStats } from './episode-stats.js';
import { makeRequest, samplePolicies } from './sample-policies.js';
import type { EpisodeStats, RolloutInput, RolloutResult, Sample } from './types.js';

interface EpisodeState<E extends Env> {
  readonly env: E;
  readonly episode: number;
  readonly stats: EpisodeStats;
  /** This episode's samples, scored with the role's return once the episode is over. */
  readonly samples: Sample[];
}

interface Move<E extends Env> {
  readonly state: EpisodeState<E>;
  readonly role: Role<E, any>;
  readonly policy: Policy;
  readonly prompt: string;
}

export async function independentRollout<E extends Env>(input: RolloutInput<E>): Promise<RolloutResult> {
  const { team, options } = input;
  const roleNames = team.roles.map((r) => r.name);
  const states: EpisodeState<E>[] = input.tasks.flatMap((index) =>
    Array.from({ length: options.k }, (_, episode) => {
      const env = input.source.make(index, input.split ?? 'train');
      return { env, episode, stats: newEpisodeStats(env.taskId, episode, roleNames), samples: [] };
    }),
  );

  /** Samples one completion per move (one batched call per policy), then applies them in order. */
  const play = async (moves: Move<E>[], ctx: TurnContext): Promise<void> => {
    const completions = await samplePolicies(
      moves.map((m) => ({
        policy: m.policy,
        request: makeRequest(
          m.prompt,
          1,
          deriveSeed(input.seed, input.step, m.state.env.taskId, ctx.turn, m.role.name, m.state.episode),
          options,
        ),
      })),
    );
    // In order, one at a time: a role's `prepare` may await the sandbox, and the steps must
    // still land in the order their prompts were built.
    for (const [i, m] of moves.entries()) await applyMove(m, completions[i]![0]!, ctx);
  };

  const applyMove = async (m: Move<E>, completion: Completion, ctx: TurnContext): Promise<void> => {
    if (m.state.env.done) return; // parallel turns: an earlier role ended the episode
    const read = parseCompletion(m.role, completion);
    const result = await stepRole(team, m.role, m.state.env, read, ctx);
    countFailures(m.state.stats, read, result);
    m.state.stats.returns[m.role.name]! += result.reward.total;
    m.state.samples.push(
      buildSample({
        taskId: m.state.env.taskId,
        turn: ctx.turn,
        role: m.role.name,
        group: independentGroupKey(m.state.env.taskId, m.role.name),
        branch: 0,
        episode: m.state.episode,
        prompt: m.prompt,
        completion,
        result,
        policyId: m.policy.id,
      }),
    );
  };

  const moveFor = (state: EpisodeState<E>, role: Role<E, any>, ctx: TurnContext): Move<E> => ({
    state,
    role,
    policy: input.policyFor(role.name),
    prompt: role.prompt(state.env, ctx),
  });

  for (let turn = 0; turn < team.maxTurns; turn++) {
    const ctx: TurnContext = { turn, maxTurns: team.maxTurns };
    const playing = states.filter((s) => !s.env.done);
    if (playing.length === 0) break;
    for (const s of playing) s.stats.turns = turn + 1;
    if (team.order === 'sequential') {
      for (const role of team.roles) {
        await play(states.filter((s) => !s.env.done).map((s) => moveFor(s, role, ctx)), ctx);
      }
    } else {
      await play(playing.flatMap((s) => team.roles.map((role) => moveFor(s, role, ctx))), ctx);
    }
  }

  const samples: Sample[] = [];
  for (const s of states) {
    s.stats.success = s.env.success;
    for (const sample of s.samples) sample.score = s.stats.returns[sample.role]!;
    samples.push(...s.samples);
  }
  return { samples, episodes: states.map((s) => s.stats) };
}
