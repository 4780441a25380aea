// npx tsx experiments/plan-path-moves.ts RUN [N]                 held-out play of RUN's newest checkpoint
// npx tsx experiments/plan-path-moves.ts --rollouts FILE.jsonl    a training step's samples (RUN/rollouts/)
// Where a trained Plan-Path team's moves go, per role: the share that shorten the maze path to G,
// step away from it, or hit a wall; after a wall hit, the share that push into the same wall
// again; after a legal move, the share that step straight back. With --rollouts it also counts
// the tree's groups (the K branches of one node): how many tie (every branch scores the same,
// so GRPO gives them no advantage) and how many are all wall hits. Reads the compact prompt
// (`hint: goal-open`, the board drawn below the header), so it fits runs of
// examples/plan-path-10-train.yaml and examples/plan-path-train.yaml.
import { readFileSync } from 'node:fs';
import { rolloutOptions, taskOptions, teamOptions } from '../src/config/runtime-options.js';
import { readRunConfig } from '../src/config/read-config.js';
import { taskOf } from '../src/config/task-of-config.js';
import { bfsDistances, UNREACHABLE } from '../src/envs/grid/bfs-distances.js';
import { DIRECTION_DELTAS, OPPOSITE_DIRECTION } from '../src/envs/grid/direction.js';
import { neighbor } from '../src/envs/grid/grid-shape.js';
import type { Direction } from '../src/envs/grid/types.js';
import { readPlanPath } from '../src/envs/plan-path/plan-path-scripted.js';
import type { Policy } from '../src/policy/types.js';
import { evaluateStoppable } from '../src/train/evaluate.js';
import { playingPolicies } from '../src/train/playing-policies.js';

const isMove = (text: string): text is Direction => text in DIRECTION_DELTAS;

type Kind = 'closer' | 'away' | 'wall' | 'unusable';
interface Read { role: string; kind: Kind; move?: Direction; last: string }

/** Classifies one answer to one compact prompt by the board's BFS distance to G. */
function classify(prompt: string, answer: string): Read {
  const head = prompt.split('\n')[0]!.split(' ');
  const role = head[0]!;
  const last = head.includes('LAST') ? head[head.indexOf('LAST') + 1]! : '-';
  const move = answer.trim().slice(0, 1);
  const board = readPlanPath(prompt);
  if (!isMove(move) || board === undefined) return { role, kind: 'unusable', last };
  const next = neighbor(board.shape, board.pos, move);
  if (next < 0 || board.walls[next] === 1) return { role, kind: 'wall', move, last };
  const distance = bfsDistances({ shape: board.shape, passable: (cell) => board.walls[cell] === 0, sources: [board.goal] });
  const closer = distance[next] !== UNREACHABLE && distance[next]! < distance[board.pos]!;
  return { role, kind: closer ? 'closer' : 'away', move, last };
}

function report(reads: readonly Read[]): void {
  const pct = (part: number, whole: number) => (whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`);
  for (const role of [...new Set(reads.map((r) => r.role))]) {
    const mine = reads.filter((r) => r.role === role);
    const count = (kind: Kind) => mine.filter((r) => r.kind === kind).length;
    const afterHit = mine.filter((r) => r.last.endsWith('X'));
    const afterMove = mine.filter((r) => isMove(r.last));
    const again = afterHit.filter((r) => r.move === r.last[0]).length;
    const back = afterMove.filter((r) => r.move !== undefined && r.move === OPPOSITE_DIRECTION[r.last as Direction]).length;
    console.log(`${role}: ${mine.length} answers; closer ${pct(count('closer'), mine.length)}, away ${pct(count('away'), mine.length)}, wall ${pct(count('wall'), mine.length)}, unusable ${pct(count('unusable'), mine.length)}; after a wall hit the same wall ${pct(again, afterHit.length)} of ${afterHit.length}; after a legal move straight back ${pct(back, afterMove.length)} of ${afterMove.length}`);
  }
}

interface RolloutLine { group: string; prompt: string; response: string; score: number }

if (process.argv[2] === '--rollouts') {
  const samples = readFileSync(process.argv[3]!, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as RolloutLine);
  const reads = samples.map((s) => classify(s.prompt, s.response));
  report(reads);
  const groups = new Map<string, number[]>();
  samples.forEach((s, i) => groups.set(s.group, [...(groups.get(s.group) ?? []), i]));
  const tied = [...groups.values()].filter((members) => members.every((i) => samples[i]!.score === samples[members[0]!]!.score));
  const allWall = [...groups.values()].filter((members) => members.every((i) => reads[i]!.kind === 'wall'));
  console.log(`groups: ${groups.size}; tied ${tied.length} (no advantage), every branch a wall hit ${allWall.length}`);
} else {
  const run = process.argv[2];
  if (run === undefined) throw new Error('give a run folder (runs/NAME) or --rollouts FILE.jsonl');
  const tasks = Number(process.argv[3] ?? 200);
  const config = await readRunConfig(run, { set: [], tasks: [] });
  const task = taskOf(config);
  const team = task.createTeam(taskOptions(config), teamOptions(config));
  const players = await playingPolicies(config, task, team.roles.map((r) => r.name), { runDir: run });
  const reads: Read[] = [];
  // One wrapper per inner policy, so roles that share a model stay batched together.
  const wrapped = new Map<Policy, Policy>();
  const policyFor = (role: string): Policy => {
    const inner = players.policyFor(role);
    const known = wrapped.get(inner);
    if (known) return known;
    const policy: Policy = {
      id: inner.id,
      sample: async (requests) => {
        const out = await inner.sample(requests);
        requests.forEach((request, i) => out[i]!.forEach((c) => reads.push(classify(request.prompt, c.text))));
        return out;
      },
    };
    wrapped.set(inner, policy);
    return policy;
  };
  const { result } = await evaluateStoppable({
    team, policyFor, tasks, seed: config.seed,
    source: task.createSource(taskOptions(config), config.seed),
    rollout: rolloutOptions(config),
    temperature: config.train.eval_temperature,
  });
  console.log(`${players.source}: held-out success ${(100 * result.success_rate).toFixed(1)}% of ${result.n}, ${result.mean_turns.toFixed(1)} turns on average`);
  report(reads);
  players.dispose?.();
}
