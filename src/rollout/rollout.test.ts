import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toyTask } from '../envs/toy/index.js';
import { PARSE_PENALTY } from '../envs/toy/toy-roles.js';
import type { TeamOptions } from '../envs/types.js';
import { createScriptedPolicy } from '../policy/scripted-policy.js';
import type { Completion, Policy, SampleRequest } from '../policy/types.js';
import { assertChosenStateContinues as replayChosen } from './replay-chosen.test-helper.js';
import { rollout } from './rollout.js';
import type { RolloutMode, RolloutOptions, Sample } from './types.js';

const toyOptions = { max_target: 12 };

function setup(overrides: { team?: Partial<TeamOptions>; mode?: RolloutMode; k?: number; skill?: number; seed?: number } = {}) {
  const team = toyTask.createTeam(toyOptions, {
    variant: 'team',
    format: 'compact',
    order: 'sequential',
    maxTurns: 3,
    alpha: 1,
    ...overrides.team,
  });
  const policies = new Map<string, Policy>();
  const policyFor = (role: string) => {
    if (!policies.has(role)) {
      policies.set(role, createScriptedPolicy({ responder: toyTask.scripted, role, skill: overrides.skill ?? 0.3 }));
    }
    return policies.get(role)!;
  };
  const options: RolloutOptions = {
    mode: overrides.mode ?? 'tree',
    k: overrides.k ?? 4,
    temperature: 1,
    topP: 1,
    topK: 0,
    maxTokens: 8,
    stop: ['\n'],
  };
  return { team, source: toyTask.createSource(toyOptions, 5), policyFor, options, seed: overrides.seed ?? 11, step: 0 };
}

function groupsOf(samples: Sample[]): Map<string, Sample[]> {
  const groups = new Map<string, Sample[]>();
  for (const s of samples) groups.set(s.group, [...(groups.get(s.group) ?? []), s]);
  return groups;
}

const tasks = [0, 1, 2, 3, 4, 5, 6, 7];

for (const order of ['sequential', 'parallel'] as const) {
  test(`tree (${order}): every group is one (task, turn, role) node of exactly K samples with one prompt`, async () => {
    const { samples } = await rollout({ ...setup({ team: { order } }), tasks });
    const groups = groupsOf(samples);
    assert.ok(groups.size >= tasks.length * 2, 'at least one turn of two roles per task');
    const taskIds = new Set<string>();
    for (const [key, members] of groups) {
      assert.equal(members.length, 4, key);
      const first = members[0]!;
      taskIds.add(first.task_id);
      for (const s of members) {
        assert.equal(s.task_id, first.task_id, `${key} mixes tasks`);
        assert.equal(s.turn, first.turn, `${key} mixes turns`);
        assert.equal(s.role, first.role, `${key} mixes roles`);
        assert.equal(s.prompt, first.prompt, `${key} has differing prompts`);
      }
      assert.deepEqual(members.map((s) => s.branch).sort(), [0, 1, 2, 3]);
      assert.equal(members.filter((s) => s.chosen).length, 1);
    }
    assert.equal(taskIds.size, tasks.length);
  });
}

test('independent: groups are (task, role) over K episodes and never mix tasks', async () => {
  const { samples, episodes } = await rollout({ ...setup({ mode: 'independent', k: 3 }), tasks });
  assert.equal(episodes.length, tasks.length * 3);
  const groups = groupsOf(samples);
  // One group per (task, role); plan may never act in a task whose tool always ends it at once.
  assert.ok(groups.size > tasks.length && groups.size <= tasks.length * 2);
  for (const [key, members] of groups) {
    assert.equal(key, `${members[0]!.task_id}|${members[0]!.role}`);
    assert.ok(members.every((s) => s.task_id === members[0]!.task_id && s.role === members[0]!.role), key);
    const seen = [...new Set(members.map((s) => s.episode))].sort();
    if (members[0]!.role === 'tool') assert.deepEqual(seen, [0, 1, 2], key);
    else assert.ok(seen.every((e) => e !== undefined && e >= 0 && e < 3), key);
    for (const s of members) {
      const episode = episodes.find((e) => e.task_id === s.task_id && e.episode === s.episode)!;
      assert.equal(s.score, episode.returns[s.role], 'score is the episode return of the role');
    }
  }
  // Each episode's role return is the sum of that role's totals in that episode.
  for (const e of episodes) {
    const mine = samples.filter((s) => s.task_id === e.task_id && s.episode === e.episode && s.role === 'plan');
    const sum = mine.reduce((acc, s) => acc + s.reward.total, 0);
    assert.ok(Math.abs(sum - e.returns.plan!) < 1e-12);
  }
});

test('tree: each branch is scored on its own env copy, so the second role sees differing rewards', async () => {
  const { samples } = await rollout({ ...setup({ skill: 0 }), tasks });
  const planGroups = [...groupsOf(samples).values()].filter((g) => g[0]!.role === 'plan');
  assert.ok(planGroups.length > 0);
  const differing = planGroups.filter((g) => new Set(g.map((s) => s.reward.total)).size > 1);
  // With uniformly random amounts a plan node ties only when all K draws agree or all overshoot.
  assert.ok(differing.length >= planGroups.length / 2, `${differing.length} of ${planGroups.length} plan groups differ`);
});

test('tree: the chosen branch is the best total (lowest index on ties)', async () => {
  const { samples } = await rollout({ ...setup({ skill: 0 }), tasks });
  for (const members of groupsOf(samples).values()) {
    const totals = members.map((s) => s.reward.total);
    const best = totals.indexOf(Math.max(...totals));
    assert.equal(members.find((s) => s.chosen)!.branch, best);
  }
});

async function assertChosenStateContinues(order: 'sequential' | 'parallel'): Promise<void> {
  const input = { ...setup({ skill: 0.2, team: { order } }), tasks };
  const { samples } = await rollout(input);
  replayChosen(input.team, input.source, tasks, samples);
}

test('tree (sequential): the chosen branch state is what the next role and the next turn see', async () => {
  await assertChosenStateContinues('sequential');
});

test('tree (parallel): roles see the start-of-turn state; chosen actions apply in role order', async () => {
  await assertChosenStateContinues('parallel');
});

test('tree (sequential): the plan prompt contains the tool action chosen in the same turn', async () => {
  const { samples } = await rollout({ ...setup({ skill: 0.5 }), tasks });
  const plans = samples.filter((s) => s.role === 'plan' && s.branch === 0);
  assert.ok(plans.length > 0);
  for (const plan of plans) {
    const tool = samples.find((s) => s.task_id === plan.task_id && s.turn === plan.turn && s.role === 'tool' && s.chosen)!;
    assert.ok(plan.prompt.includes(`TOOL+${tool.response}\n`), `${plan.prompt} lacks TOOL+${tool.response}`);
  }
});

test('episodes stop at success, and at the turn limit otherwise', async () => {
  const solved = await rollout({ ...setup({ skill: 1 }), tasks });
  for (const e of solved.episodes) {
    assert.equal(e.success, true, e.task_id);
    const last = Math.max(...solved.samples.filter((s) => s.task_id === e.task_id).map((s) => s.turn));
    assert.equal(e.turns, last + 1);
  }
  const short = await rollout({ ...setup({ skill: 0, team: { maxTurns: 1 } }), tasks });
  assert.ok(short.samples.every((s) => s.turn === 0));
  assert.ok(short.episodes.every((e) => e.turns === 1));
});

/** A policy that returns garbage for branch 1, a failed generation for branch 2, '1' otherwise. */
const faultyPolicy: Policy = {
  id: 'faulty',
  async sample(requests: readonly SampleRequest[]): Promise<Completion[][]> {
    return requests.map((r) =>
      Array.from({ length: r.n }, (_, i): Completion => {
        if (i === 1) return { text: 'banana', finishReason: 'stop' };
        if (i === 2) return { text: '', finishReason: 'error', error: 'server hung up' };
        return { text: '1', finishReason: 'length' };
      }),
    );
  },
};

test('parse failures and generation errors are recorded, penalised and counted, never dropped', async () => {
  const input = { ...setup({ k: 3 }), policyFor: () => faultyPolicy, tasks: [0, 1] };
  const { samples, episodes } = await rollout(input);
  const nodes = groupsOf(samples).size;
  assert.equal(samples.length, nodes * 3);
  const garbage = samples.filter((s) => s.branch === 1);
  const errors = samples.filter((s) => s.branch === 2);
  assert.ok(garbage.every((s) => s.failure?.includes('banana') && s.reward.local === PARSE_PENALTY));
  assert.ok(errors.every((s) => s.failure === 'generation error: server hung up' && s.finish_reason === 'error'));
  assert.ok(errors.every((s) => s.reward.local === PARSE_PENALTY));
  assert.ok(samples.filter((s) => s.branch === 0).every((s) => s.failure === undefined && s.finish_reason === 'length'));
  const perTask = (id: string) => samples.filter((s) => s.task_id === id);
  for (const e of episodes) {
    assert.equal(e.parse_failures, perTask(e.task_id).filter((s) => s.branch === 1).length);
    assert.equal(e.generation_errors, perTask(e.task_id).filter((s) => s.branch === 2).length);
    assert.ok(e.parse_failures > 0);
  }
});

test('request seeds do not depend on batching: a task alone gives the same samples', async () => {
  const batch = await rollout({ ...setup(), tasks });
  const alone = await rollout({ ...setup(), tasks: [3] });
  const id = alone.samples[0]!.task_id;
  assert.deepEqual(batch.samples.filter((s) => s.task_id === id), alone.samples);
  const again = await rollout({ ...setup(), tasks });
  assert.deepEqual(again, batch);
  const other = await rollout({ ...setup({ seed: 12 }), tasks });
  assert.notDeepEqual(other.samples, batch.samples);
});

test('one policy.sample call per policy per step, with n = K (tree) or 1 (independent)', async () => {
  for (const mode of ['tree', 'independent'] as const) {
    const calls: number[][] = [];
    const inner = createScriptedPolicy({ responder: toyTask.scripted, role: 'tool', skill: 0 });
    const counting: Policy = { id: 'count', sample: (rs) => (calls.push(rs.map((r) => r.n)), inner.sample(rs)) };
    const input = { ...setup({ mode, k: 3 }), policyFor: () => counting, tasks: [0, 1, 2] };
    const { samples } = await rollout(input);
    const steps = new Set(samples.map((s) => `${s.turn}|${s.role}`)).size;
    assert.equal(calls.length, steps, mode);
    assert.ok(calls.flat().every((n) => n === (mode === 'tree' ? 3 : 1)));
    assert.equal(calls[0]!.length, mode === 'tree' ? 3 : 9, 'first step batches every task (and episode)');
  }
});

test('a policy that breaks its contract is a policy error; duplicate task indices are rejected', async () => {
  const short: Policy = { id: 'short', sample: async (rs) => rs.map(() => [{ text: '1', finishReason: 'stop' }]) };
  await assert.rejects(rollout({ ...setup(), policyFor: () => short, tasks: [0] }), /returned 1 completions for a request with n = 4/);
  await assert.rejects(rollout({ ...setup(), tasks: [1, 1] }), /task index 1 appears twice/);
});

test('tree, continue sampled: the continued branch is drawn uniformly, not the best, and seeded', async () => {
  const input = { ...setup({ skill: 0.2 }), tasks, options: { ...setup().options, continueWith: 'sampled' as const } };
  const { samples } = await rollout(input);
  const counts = [0, 0, 0, 0];
  let notBest = 0;
  for (const members of groupsOf(samples).values()) {
    assert.equal(members.length, 4, 'the K branches still form the group');
    const chosen = members.filter((s) => s.chosen);
    assert.equal(chosen.length, 1);
    counts[chosen[0]!.branch]! += 1;
    if (chosen[0]!.reward.total < Math.max(...members.map((s) => s.reward.total))) notBest += 1;
  }
  assert.ok(notBest > 0, 'some continued branches score below their group best');
  assert.ok(counts.every((c) => c > 0), `every branch index is continued some time: ${counts}`);
  replayChosen(input.team, input.source, tasks, samples);
  const again = await rollout({ ...input, ...setup({ skill: 0.2 }), options: input.options });
  assert.deepEqual(
    again.samples.filter((s) => s.chosen).map((s) => s.group + s.branch),
    samples.filter((s) => s.chosen).map((s) => s.group + s.branch),
  );
});

test('tree, continue with a fraction: 0 is the best branch exactly, 1 is sampled exactly, 0.5 draws at some nodes only', async () => {
  const run = async (continueWith: 'best' | 'sampled' | number) => {
    const base = setup({ skill: 0.2 });
    const { samples } = await rollout({ ...base, tasks, options: { ...base.options, continueWith } });
    return samples;
  };
  const chosenKeys = (samples: Sample[]) => samples.filter((s) => s.chosen).map((s) => s.group + s.branch);
  // The share of nodes whose continued branch is not the best one (the lowest index of the
  // highest total): about 3/4 for uniform draws from 4, half that for p = 0.5.
  const notBest = (samples: Sample[]) => {
    const groups = [...groupsOf(samples).values()];
    const drawn = groups.filter((members) => {
      const totals = members.map((s) => s.reward.total);
      return members.find((s) => s.chosen)!.branch !== totals.indexOf(Math.max(...totals));
    });
    return drawn.length / groups.length;
  };
  const [best, zero, half, one, sampled] = await Promise.all([run('best'), run(0), run(0.5), run(1), run('sampled')]);
  assert.deepEqual(chosenKeys(zero), chosenKeys(best));
  assert.deepEqual(chosenKeys(one), chosenKeys(sampled));
  const drawnHalf = notBest(half);
  assert.ok(drawnHalf > 0, 'with 0.5 some continued branches are not the best');
  assert.ok(drawnHalf < notBest(sampled), `0.5 draws less often than sampled: ${drawnHalf} vs ${notBest(sampled)}`);
  for (const members of groupsOf(half).values()) assert.equal(members.length, 4, 'the K branches still form the group');
  await assert.rejects(run(1.5), /rollout\.continue: a number must lie in \[0, 1\]/);
});

test('tree, continue per role: a map draws for the named roles and keeps the best for the others', async () => {
  const base = setup({ skill: 0.2 });
  const { samples } = await rollout({ ...base, tasks, options: { ...base.options, continueWith: { tool: 'sampled' } } });
  let toolNotBest = 0;
  for (const members of groupsOf(samples).values()) {
    const chosen = members.find((s) => s.chosen)!;
    const totals = members.map((s) => s.reward.total);
    if (chosen.role === 'plan') assert.equal(chosen.branch, totals.indexOf(Math.max(...totals)), chosen.group);
    else if (chosen.reward.total < Math.max(...totals)) toolNotBest += 1;
  }
  assert.ok(toolNotBest > 0, 'some tool continuations are not the best');
  await assert.rejects(
    rollout({ ...setup(), tasks, options: { ...base.options, continueWith: { tols: 'sampled' } } }),
    /rollout\.continue: no role tols in this team; its roles are tool, plan/,
  );
});
