// npx tsx experiments/plan-path-header-policy.ts [SIZE] [SEED] [N]     (default 10 1 200)
// How far the `hint: goal-open` header alone carries a mover on Plan-Path: hand-written
// policies that read only what the header states (the goal's offset from P, the open moves)
// play the held-out split of a run seed (the tasks `troupe eval` scores, wall_fraction 0.22,
// min_distance 2, up to 30 moves on 10x10 and 24 on 6x6, one move a turn) and print their
// success rates. No model is involved: it bounds what a policy that never reads the board
// can reach, to set against what the trained team reaches.
import { generatePlanPath } from '../src/envs/plan-path/generate-plan-path.js';
import { deriveSeed, Rng } from '../src/util/rng.js';

const size = Number(process.argv[2] ?? 10);
const seed = Number(process.argv[3] ?? 1);
const n = Number(process.argv[4] ?? 200);
const maxTurns = size >= 10 ? 30 : 24;
const steps = [-size, size, -1, 1]; // U D L R

interface View { open: number[]; distance: (cell: number) => number; previous: number; rng: Rng }
type Policy = (view: View) => number;

/** Among the open moves, one that brings P closest to G as the crow walks (ties at random). */
const greedy: Policy = ({ open, distance, rng }) => {
  const best = Math.min(...open.map(distance));
  return rng.pick(open.filter((cell) => distance(cell) === best));
};
/** The same, never stepping straight back unless it is the only open move (one move of memory). */
const greedyNoBack: Policy = (view) => {
  const forward = view.open.filter((cell) => cell !== view.previous);
  return greedy({ ...view, open: forward.length > 0 ? forward : view.open });
};
/** A uniformly random open move. */
const randomOpen: Policy = ({ open, rng }) => rng.pick(open);

function successRate(policy: Policy): number {
  let solved = 0;
  const rng = new Rng(deriveSeed(seed, 'header-policy'));
  for (let index = 0; index < n; index++) {
    const task = generatePlanPath({
      id: `plan-path/eval/${index}`,
      shape: { height: size, width: size },
      wallFraction: 0.22,
      minDistance: 2,
      rng: new Rng(deriveSeed(seed, 'plan-path', 'eval', index)),
    });
    const row = (cell: number) => Math.floor(cell / size);
    const distance = (cell: number) => Math.abs(row(cell) - row(task.goal)) + Math.abs((cell % size) - (task.goal % size));
    let at = task.start;
    let previous = -1;
    for (let turn = 0; turn < maxTurns && at !== task.goal; turn++) {
      const open = steps
        .map((step) => at + step)
        .filter((cell, i) => cell >= 0 && cell < size * size && (i < 2 || row(cell) === row(at)) && task.walls[cell] === 0);
      const next = policy({ open, distance, previous, rng });
      previous = at;
      at = next;
    }
    if (at === task.goal) solved++;
  }
  return solved / n;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(`Plan-Path ${size}x${size}, eval split of seed ${seed}, n = ${n}, up to ${maxTurns} moves`);
console.log(`greedy on the header (closest open move, ties at random): ${pct(successRate(greedy))}`);
console.log(`the same, never stepping straight back:                   ${pct(successRate(greedyNoBack))}`);
console.log(`a random open move:                                       ${pct(successRate(randomOpen))}`);
