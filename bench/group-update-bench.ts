// Time of one RL update at the shape of the default run (examples/plan-path-train.yaml): the
// ~0.2M-parameter character model, G groups whose K responses of 2 tokens share a ~75-token
// prompt, policy forward + backward and the KL reference's forward, as the learner runs them.
// Prints the median of several rounds; no assertion (machines are noisy).
// Run: npx tsx bench/group-update-bench.ts [--groups 70] [--k 4] [--prompt 75] [--rounds 7] [--threads 1|2] [--backend auto|native|wasm]
//        [--per-sequence]
import type { BackendName } from '../src/engine/kernels/backend-name.js';
import { createKernels } from '../src/engine/kernels/get-kernels.js';
import { llamaConfig } from '../src/engine/model/llama-config.js';
import type { TrainingSequence } from '../src/train/learner.js';
import { timeRlUpdate } from '../src/train/update-bench.js';
import { Rng } from '../src/util/rng.js';

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
}
const option = (name: string, fallback: string): string => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1]! : fallback);

const groups = flag('--groups', 70);
const k = flag('--k', 4);
const promptLength = flag('--prompt', 75);
const rounds = flag('--rounds', 7);
const threads = flag('--threads', 1) === 2 ? 2 : 1;
const vocab = 64;
const created = await createKernels({ backend: option('--backend', 'auto') as BackendName, threads });
// --per-sequence: attention without the native batch call (one kernel call per sequence), to compare.
const kernels = process.argv.includes('--per-sequence') ? { ...created, attentionBatchForward: undefined, attentionBatchBackward: undefined } : created;
const config = llamaConfig({ hidden: 64, layers: 4, heads: 4, intermediate: 192, vocab, context: 128 });
const rng = new Rng(7);
const random = () => rng.next();
const token = () => 1 + Math.floor(random() * (vocab - 1));
const sequences: TrainingSequence[] = [];
for (let g = 0; g < groups; g++) {
  // Prompts of the default run differ in length by a few characters (turn counters, hints).
  const promptIds = Array.from({ length: promptLength - (g % 5) }, token);
  for (let b = 0; b < k; b++) {
    sequences.push({ promptIds, responseIds: [token(), token()], oldLogprobs: [0, 0], advantage: random() - 0.5, group: `g${g}` });
  }
}
// The run's learner settings (PPO-clip, k3 KL to a frozen copy), timed as `bench engine --profile` times them.
const timing = timeRlUpdate({ kernels, config, batch: sequences, updates: rounds, warmup: 1 });
const times = [...timing.wallMs];
times.sort((a, b) => a - b);
const median = times[times.length >> 1]!;
console.log(`${kernels.name}${kernels === created ? '' : ' (per-sequence attention)'}, ${threads} thread(s): ${groups} groups x K=${k}, prompt ~${promptLength} tokens: ` +
  `update median ${median.toFixed(1)} ms (range ${times[0]!.toFixed(1)}-${times[times.length - 1]!.toFixed(1)}), ${(median / (groups * k)).toFixed(2)} ms a sample`);
