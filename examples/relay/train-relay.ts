// Trains the relay task through the API, then scores the run on held-out tasks.
//   npx tsc && node train-relay.js
import { evaluate, train } from 'troupe';

// relay.yaml names the task's module (tasks.module: ./relay.ts), so the calls need no `tasks`.
// The events carry the records metrics.jsonl gets; the eval of step -1 scores the warm-started
// base, before any RL step.
let base: number | null = null;
const run = await train({
  config: 'relay.yaml',
  runDir: 'runs/relay-api',
  progress: false,
  onEval: (record) => {
    if (record.step < 0) base = record.success_rate;
  },
  onStep: (record) => {
    if ((record.step + 1) % 20 === 0) console.error(`step ${record.step + 1}: success ${record.success_rate}`);
  },
});
const score = await evaluate({ run: run.runDir });
console.log(JSON.stringify({ base, final: score.successRate, ci: [score.ciLow, score.ciHigh], n: score.n }));
