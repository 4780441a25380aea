// Trains the relay task through the API, then scores the run on held-out tasks.
//   npx tsc && node train-relay.js
import { readFileSync } from 'node:fs';
import { evaluate, train } from 'troupe';
import relay from './relay.js';

const run = await train({ config: 'relay.yaml', tasks: [relay], runDir: 'runs/relay-api', progress: false });
const score = await evaluate({ run: run.runDir, tasks: [relay] });
// The first eval record of a run scores the warm-started base, before any RL step.
const base = readFileSync(`${run.runDir}/metrics.jsonl`, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { kind: string; success_rate?: number }).find((r) => r.kind === 'eval');
console.log(JSON.stringify({ base: base?.success_rate, final: score.success_rate, ci: [score.ci_low, score.ci_high], n: score.n }));
