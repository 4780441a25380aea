// MAGRPO joint rollouts on a tiny 2-role task whose joint reward is a table of the two
// actions, played by a fake policy that reads its answers off the prompt. The expected
// returns, credits and advantages are worked out by hand below (gamma 0.9, 2 turns, G = 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeAdvantages } from '../algo/compute-advantages.js';
import type { EstimatorName } from '../algo/advantage-estimators.js';
import type { Env, Role, Team } from '../envs/types.js';
import type { Completion, Policy, SampleRequest } from '../policy/types.js';
import { TroupeError } from '../util/errors.js';
import { rollout } from './rollout.js';
import type { JointOptions, Sample } from './types.js';

/** Joint reward of a move (x, y): REWARD[x][y]. */
const REWARD = [
  [0, 1, 0.5],
  [2, 0, 1],
  [1, 3, 0],
];

interface LogEntry {
  op: 'prompt' | 'step';
  env: number;
  parent: number | undefined;
  turn: number;
  role: string;
}

let nextId = 0;

class PairEnv implements Env {
  readonly id = nextId++;
  parent: number | undefined;
  /** Completed moves (x, y) in order. */
  moves: Array<[number, number]> = [];
  pendingX = 0;
  constructor(
    readonly taskId: string,
    /** The episode ends (solved) once a move earns at least this much. */
    readonly solvedAt: number,
  ) {}
  get done() {
    return this.success;
  }
  get success() {
    const last = this.moves.at(-1);
    return last !== undefined && REWARD[last[0]]![last[1]]! >= this.solvedAt;
  }
  clone(): this {
    const copy = new PairEnv(this.taskId, this.solvedAt);
    copy.parent = this.id;
    copy.moves = this.moves.map(([x, y]) => [x, y]);
    copy.pendingX = this.pendingX;
    return copy as this;
  }
}

function pairTeam(log: LogEntry[], maxTurns = 2): Team<PairEnv> {
  const role = (name: 'x' | 'y'): Role<PairEnv, number> => ({
    name,
    prompt(env, ctx) {
      log.push({ op: 'prompt', env: env.id, parent: env.parent, turn: ctx.turn, role: name });
      return `${name} t${ctx.turn} h=${env.moves.map(([x, y]) => `${x}${y}`).join(',')}`;
    },
    parse: (text) => (/^[0-2]$/.test(text) ? { ok: true, action: Number(text) } : { ok: false, reason: `not 0-2: ${text}` }),
    step(env, action, ctx) {
      log.push({ op: 'step', env: env.id, parent: env.parent, turn: ctx.turn, role: name });
      const value = action.ok ? action.action : 0;
      if (name === 'x') env.pendingX = value;
      else env.moves.push([env.pendingX, value]);
      // x's local reward is 0.1 per unit of its action; y has none; a broken answer costs -1.
      if (!action.ok) return { local: -1, failure: `${name}: ${action.reason}` };
      return { local: name === 'x' ? 0.1 * value : 0 };
    },
  });
  return {
    name: 'pair',
    roles: [role('x'), role('y')],
    order: 'parallel',
    maxTurns,
    alpha: 0.5,
    globalReward: (env) => {
      const last = env.moves.at(-1);
      return last ? REWARD[last[0]]![last[1]]! : 0;
    },
  };
}

/**
 * Turn 0 (no history): x answers 1 then 0, y answers 0 then 2.
 * Later turns, after a last move (a, b): x answers b then (b + 1) % 3; y answers a then 1.
 */
const fakePolicy: Policy = {
  id: 'fake',
  async sample(requests: readonly SampleRequest[]): Promise<Completion[][]> {
    return requests.map((r) => {
      const [role, , history] = r.prompt.split(' ') as [string, string, string];
      const last = history.slice(2).split(',').at(-1)!;
      let answers: string[];
      if (last === '') answers = role === 'x' ? ['1', '0'] : ['0', '2'];
      else {
        const [a, b] = [Number(last[0]), Number(last[1])];
        answers = role === 'x' ? [String(b), String((b + 1) % 3)] : [String(a), '1'];
      }
      assert.equal(r.n, answers.length);
      return answers.map((text) => ({ text, finishReason: 'stop' as const }));
    });
  },
};

async function play(joint: Partial<JointOptions>, options: { solvedAt?: number; maxTurns?: number; tasks?: number[]; policy?: Policy } = {}) {
  const log: LogEntry[] = [];
  const result = await rollout({
    team: pairTeam(log, options.maxTurns),
    source: { make: (index) => new PairEnv(`pair/${index}`, options.solvedAt ?? 99) },
    tasks: options.tasks ?? [0],
    policyFor: () => options.policy ?? fakePolicy,
    options: { mode: 'joint', k: 2, temperature: 1, topP: 1, topK: 0, maxTokens: 4, stop: [], joint: { gamma: 0.9, ...joint } },
    seed: 1,
    step: 0,
  });
  return { log, ...result };
}

/** node -> role -> the G values of `field`, in response order. */
function table(samples: Sample[], field: (s: Sample) => number): Record<string, Record<string, number[]>> {
  const out: Record<string, Record<string, number[]>> = {};
  for (const s of [...samples].sort((a, b) => a.branch - b.branch)) {
    ((out[s.node!] ??= {})[s.role] ??= []).push(field(s));
  }
  return out;
}

function assertClose(actual: Record<string, Record<string, number[]>>, expected: Record<string, Record<string, number[]>>) {
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), 'nodes');
  for (const [node, roles] of Object.entries(expected)) {
    for (const [role, values] of Object.entries(roles)) {
      const got = actual[node]![role]!;
      assert.equal(got.length, values.length, `${node} ${role}`);
      values.forEach((v, i) => assert.ok(Math.abs(got[i]! - v) < 1e-9, `${node} ${role}[${i}]: got ${got[i]}, expected ${v}`));
    }
  }
}

function advantages(samples: Sample[], estimator: EstimatorName) {
  return table(computeAdvantages(samples, estimator).samples, (s) => s.advantage);
}

// Aligned, expand all. Root: x = (1, 0), y = (0, 2): joint actions (1,0) r=2 and (0,2) r=0.5.
// Node 0.0 (after 10): x = (0, 1), y = (1, 1): (0,1) r=1, (1,1) r=0; mean 0.5.
// Node 0.1 (after 02): x = (2, 0), y = (0, 1): (2,0) r=1, (0,1) r=1; mean 1.
// Root returns: 2 + 0.9 * 0.5 = 2.45 and 0.5 + 0.9 * 1 = 1.4; leaves R = r.
const ALIGNED_SCORES = {
  '0': { x: [2.45, 1.4], y: [2.45, 1.4] },
  '0.0': { x: [1, 0], y: [1, 0] },
  '0.1': { x: [1, 1], y: [1, 1] },
};

test('aligned, 2 turns: returns and advantages match the hand-computed tree', async () => {
  const { samples, episodes } = await play({ joint: 'aligned' });
  assert.equal(samples.length, 3 * 2 * 2, '3 nodes x 2 roles x G');
  assertClose(table(samples, (s) => s.score), ALIGNED_SCORES);
  // mean: R - group mean; rloo with G = 2: R - the other; max: R - best; raw: R.
  assertClose(advantages(samples, 'mean'), {
    '0': { x: [0.525, -0.525], y: [0.525, -0.525] },
    '0.0': { x: [0.5, -0.5], y: [0.5, -0.5] },
    '0.1': { x: [0, 0], y: [0, 0] },
  });
  assertClose(advantages(samples, 'rloo'), {
    '0': { x: [1.05, -1.05], y: [1.05, -1.05] },
    '0.0': { x: [1, -1], y: [1, -1] },
    '0.1': { x: [0, 0], y: [0, 0] },
  });
  assertClose(advantages(samples, 'max'), {
    '0': { x: [0, -1.05], y: [0, -1.05] },
    '0.0': { x: [0, -1], y: [0, -1] },
    '0.1': { x: [0, 0], y: [0, 0] },
  });
  assertClose(advantages(samples, 'raw'), ALIGNED_SCORES);
  // grpo: two distinct values are +-1 std apart from their mean (up to the eps in the std).
  const grpo = advantages(samples, 'grpo');
  assert.ok(Math.abs(grpo['0']!.x![0]! - 1) < 1e-5 && Math.abs(grpo['0']!.x![1]! + 1) < 1e-5);
  // Sample rewards: x's response 0 at the root: local 0.1, joint reward 2, total 0.1 + 0.5 * 2.
  const x0 = samples.find((s) => s.node === '0' && s.role === 'x' && s.branch === 0)!;
  assert.deepEqual(x0.reward, { local: 0.1, global: 2, total: 1.1 });
  assert.equal(x0.group, 'pair/0|n0|x');
  // The episode follows the best-return joint actions: root j0 (2.45), then 0.0 j0 (1).
  assert.equal(episodes.length, 1);
  assert.equal(episodes[0]!.turns, 2);
  assert.ok(Math.abs(episodes[0]!.returns.x! - (0.1 + 1 + 0 + 0.5)) < 1e-9);
  assert.ok(Math.abs(episodes[0]!.returns.y! - (1 + 0.5)) < 1e-9);
});

// Cross, expand all. Root joint actions j = 2 * gx + gy: (1,0) r=2, (1,2) r=1, (0,0) r=0, (0,2) r=0.5.
// Children (after the move shown), cross rewards and their mean:
//   0.0 after 10: x (0,1), y (1,1): r = [1, 1, 0, 0], mean 0.5
//   0.1 after 12: x (2,0), y (1,1): r = [3, 3, 1, 1], mean 2
//   0.2 after 00: x (0,1), y (0,1): r = [0, 1, 2, 0], mean 0.75
//   0.3 after 02: x (2,0), y (0,1): r = [1, 3, 0, 1], mean 1.25
// Root R = [2 + 0.45, 1 + 1.8, 0 + 0.675, 0.5 + 1.125] = [2.45, 2.8, 0.675, 1.625].
// Sum credit: x0 = j0 + j1, x1 = j2 + j3; y0 = j0 + j2, y1 = j1 + j3.
const CROSS_SUM_SCORES = {
  '0': { x: [5.25, 2.3], y: [3.125, 4.425] },
  '0.0': { x: [2, 0], y: [1, 1] },
  '0.1': { x: [6, 2], y: [4, 4] },
  '0.2': { x: [1, 2], y: [2, 1] },
  '0.3': { x: [4, 1], y: [1, 4] },
};

test('cross, 2 turns, expand all: sum credit and advantages match the hand-computed tree', async () => {
  const { samples } = await play({ joint: 'cross', expand: 'all' });
  assert.equal(samples.length, 5 * 2 * 2);
  assertClose(table(samples, (s) => s.score), CROSS_SUM_SCORES);
  assertClose(advantages(samples, 'mean'), {
    '0': { x: [1.475, -1.475], y: [-0.65, 0.65] },
    '0.0': { x: [1, -1], y: [0, 0] },
    '0.1': { x: [2, -2], y: [0, 0] },
    '0.2': { x: [-0.5, 0.5], y: [0.5, -0.5] },
    '0.3': { x: [1.5, -1.5], y: [-1.5, 1.5] },
  });
  // Sample rewards average over the response's joint actions: x0 at the root is in (1,0) r=2
  // and (1,2) r=1: local 0.1, global 1.5, total 0.1 + 0.5 * 1.5.
  const x0 = samples.find((s) => s.node === '0' && s.role === 'x' && s.branch === 0)!;
  assert.deepEqual(x0.reward, { local: 0.1, global: 1.5, total: 0.85 });
});

test('cross, mean credit: the sums divided by G^(n-1) = 2', async () => {
  const { samples } = await play({ joint: 'cross', expand: 'all', credit: 'mean' });
  const halved = Object.fromEntries(
    Object.entries(CROSS_SUM_SCORES).map(([node, roles]) => [node, { x: roles.x.map((v) => v / 2), y: roles.y.map((v) => v / 2) }]),
  );
  assertClose(table(samples, (s) => s.score), halved);
});

// Cross, expand best (the default for cross): only the root's highest-reward joint action
// (1,0) r=2 continues, into node 0.0 (mean 0.5). Root R = [2.45, 1, 0, 0.5].
test('cross, default expand best: only the best joint action continues', async () => {
  const { samples } = await play({ joint: 'cross' });
  assertClose(table(samples, (s) => s.score), {
    '0': { x: [3.45, 0.5], y: [2.45, 1.5] },
    '0.0': { x: [2, 0], y: [1, 1] },
  });
  assertClose(advantages(samples, 'rloo'), {
    '0': { x: [2.95, -2.95], y: [0.95, -0.95] },
    '0.0': { x: [2, -2], y: [0, 0] },
  });
});

// x's second root answer is broken ('z'): it plays as 0, so joint action 1 is (0, 2), r = 0.5.
const brokenPolicy: Policy = {
  id: 'broken',
  async sample(requests) {
    const completions = await fakePolicy.sample(requests);
    return completions.map((c, i) => (requests[i]!.prompt.startsWith('x t0') ? c.map((one, g) => (g === 1 ? { ...one, text: 'z' } : one)) : c));
  },
};

test('reward: global scores the state alone; global+failures adds broken answers\' penalties; global+local every local reward', async () => {
  const score = async (reward: JointOptions['reward']) => (await play({ joint: 'aligned', reward }, { maxTurns: 1, policy: brokenPolicy })).samples;
  assertClose(table(await score('global'), (s) => s.score), { '0': { x: [2, 0.5], y: [2, 0.5] } });
  const failures = await score('global+failures');
  assertClose(table(failures, (s) => s.score), { '0': { x: [2, -0.5], y: [2, -0.5] } });
  // x's local rewards: 0.1 for its answer 1, -1 for the broken one; y has none.
  assertClose(table(await score('global+local'), (s) => s.score), { '0': { x: [2.1, -0.5], y: [2.1, -0.5] } });
  // The failure is recorded on the broken sample only, and its logged joint reward includes the penalty.
  const x1 = failures.find((s) => s.role === 'x' && s.branch === 1)!;
  assert.match(x1.failure ?? '', /^x: /);
  assert.equal(x1.reward.global, -0.5);
  assert.equal(failures.filter((s) => s.failure !== undefined).length, 1);
});

test('a joint action that ends the episode is a leaf: no child node, R = r', async () => {
  // Solved at reward >= 2: root joint action (1,0) (r = 2) ends the episode.
  const { samples, episodes } = await play({ joint: 'aligned' }, { solvedAt: 2 });
  assertClose(table(samples, (s) => s.score), {
    '0': { x: [2, 1.4], y: [2, 1.4] },
    '0.1': { x: [1, 1], y: [1, 1] },
  });
  assert.equal(episodes[0]!.success, true, 'the best-return path solved the task');
});

test('groups: one prompt and G samples per (task, node, role); seeds differ per node', async () => {
  const { samples } = await play({ joint: 'cross', expand: 'all' }, { tasks: [0, 1, 2] });
  const groups = new Map<string, Sample[]>();
  for (const s of samples) groups.set(s.group, [...(groups.get(s.group) ?? []), s]);
  assert.equal(groups.size, 3 * 5 * 2);
  for (const [key, members] of groups) {
    const first = members[0]!;
    assert.equal(key, `${first.task_id}|n${first.node}|${first.role}`);
    assert.equal(members.length, 2);
    assert.deepEqual(members.map((s) => s.branch).sort(), [0, 1]);
    assert.ok(members.every((s) => s.prompt === first.prompt && s.turn === first.turn && s.task_id === first.task_id));
  }
  // Child prompts come from the child env: node 0.1 follows the root's joint action 1 = (1,2).
  const child = samples.find((s) => s.task_id === 'pair/1' && s.node === '0.1' && s.role === 'y')!;
  assert.equal(child.prompt, 'y t1 h=12');
  assert.equal(child.turn, 1);
});

test('spy: every joint action steps its own clone of the node env, roles in order; children prompt on that clone', async () => {
  for (const joint of ['aligned', 'cross'] as const) {
    const { log } = await play({ joint, expand: 'all' });
    const perNode = joint === 'aligned' ? 2 : 4;
    const steps = log.filter((e) => e.op === 'step');
    for (const turn of [0, 1]) {
      const stepped = new Map<number, LogEntry[]>();
      for (const e of steps.filter((e) => e.turn === turn)) stepped.set(e.env, [...(stepped.get(e.env) ?? []), e]);
      // Each env stepped this turn is one joint action: x then y on one clone.
      for (const [env, entries] of stepped) {
        assert.deepEqual(entries.map((e) => e.role), ['x', 'y'], `${joint} t${turn}: env ${env} got both roles in order`);
      }
      // Node envs: prompted this turn but not stepped this turn (clones are prompted too, by
      // the clone check, and then stepped).
      const nodeEnvs = [...new Set(log.filter((e) => e.op === 'prompt' && e.turn === turn && !stepped.has(e.env)).map((e) => e.env))];
      assert.equal(nodeEnvs.length, turn === 0 ? 1 : perNode, `${joint} t${turn}: node count`);
      for (const node of nodeEnvs) {
        const clones = [...stepped].filter(([, entries]) => entries[0]!.parent === node);
        assert.equal(clones.length, perNode, `${joint} t${turn}: node env ${node} has one clone per joint action`);
      }
      assert.equal(stepped.size, nodeEnvs.length * perNode, `${joint} t${turn}: every step is on a clone of a node env`);
      if (turn === 1) {
        // A child node's env IS the clone its joint action stepped at turn 0.
        const rootClones = new Set(steps.filter((e) => e.turn === 0).map((e) => e.env));
        assert.ok(nodeEnvs.every((env) => rootClones.has(env)), `${joint}: children prompt on their joint action's env`);
      }
    }
  }
});

test('joint mode needs parallel turns, and a cross tree that would explode is refused', async () => {
  const log: LogEntry[] = [];
  const base = {
    source: { make: (index: number) => new PairEnv(`pair/${index}`, 99) },
    tasks: [0],
    policyFor: () => fakePolicy,
    seed: 1,
    step: 0,
  };
  const options = { mode: 'joint' as const, k: 2, temperature: 1, topP: 1, topK: 0, maxTokens: 4, stop: [] };
  await assert.rejects(
    rollout({ ...base, team: { ...pairTeam(log), order: 'sequential' }, options }),
    (e: unknown) => e instanceof TroupeError && e.category === 'config' && /team\.order.*parallel/.test(e.message),
  );
  await assert.rejects(
    rollout({ ...base, team: pairTeam(log, 8), options: { ...options, joint: { joint: 'cross', expand: 'all' } } }),
    (e: unknown) => e instanceof TroupeError && e.category === 'config' && /magrpo\.expand: best/.test(e.message),
  );
});

test('expand sampled: one drawn joint action continues per node, seeded, not always the best', async () => {
  const tasks = [0, 1, 2, 3, 4, 5, 6, 7];
  const paths = async () => {
    const { samples } = await play({ joint: 'cross', expand: 'sampled', gamma: 0 }, { maxTurns: 3, tasks });
    return tasks.map((t) => [...new Set(samples.filter((s) => s.task_id === `pair/${t}`).map((s) => s.node!))].sort());
  };
  const perTask = await paths();
  for (const nodes of perTask) {
    assert.equal(nodes.length, 3, `one node per turn: ${nodes}`);
    nodes.slice(1).forEach((node, i) => assert.ok(node.startsWith(`${nodes[i]}.`), `${node} continues ${nodes[i]}`));
  }
  // Every task's root is the same node (the policy is deterministic), so `best` would continue
  // the same joint action everywhere; uniform draws over 4 joint actions do not.
  assert.ok(new Set(perTask.map((nodes) => nodes[1])).size > 1, `root continuations: ${perTask.map((n) => n[1])}`);
  assert.deepEqual(await paths(), perTask, 'the same seed draws the same continuations');
});
