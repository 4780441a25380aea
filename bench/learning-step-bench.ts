// CPU time of each RL step of a short learning run (rollout, update, metrics; the warm start and
// the evaluations are not counted), as the learning runs take them on one thread.
// Run: TROUPE_THREADS=1 npx tsx bench/learning-step-bench.ts [--config examples/sudoku-train.yaml] [--steps 8] [--run-dir DIR]
// Prints one JSON line: CPU ms of every step, their median and range, and the load average. The
// run's metrics.jsonl and checkpoints (one at the last step) stay in the run folder, so two builds
// can be compared bit for bit (only the timing fields of metrics.jsonl may differ).
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { train } from '../src/index.js';

const option = (name: string, fallback: string): string => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1]! : fallback);
const steps = Number(option('--steps', '8'));
const runDir = option('--run-dir', mkdtempSync(join(tmpdir(), 'learning-step-bench-')));
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

let last = 0;
const perStep: number[] = [];
await train({
  config: option('--config', 'examples/sudoku-train.yaml'),
  runDir,
  progress: false,
  set: [`train.steps=${steps}`, 'warm_start.episodes=60', `train.eval_every=${steps}`, 'train.eval_tasks=8', `train.checkpoint_every=${steps}`, `train.samples_every=${steps}`],
  // The base evaluation ends right before step 0; a step's time runs to its record.
  onEval: (record) => {
    if (record.step === -1) last = cpuMs();
  },
  onStep: () => {
    const now = cpuMs();
    perStep.push(Math.round(now - last));
    last = now;
  },
});
const sorted = [...perStep].sort((a, b) => a - b);
console.log(JSON.stringify({ runDir, stepCpuMs: perStep, median: sorted[sorted.length >> 1], min: sorted[0], max: sorted[sorted.length - 1], load: loadavg().map((x) => Number(x.toFixed(1))) }));
