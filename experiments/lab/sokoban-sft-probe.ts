// TROUPE_THREADS=1 npx tsx experiments/lab/sokoban-sft-probe.ts '{"skill":1,"episodes":600,"turns":16,"hint":"box-goal-open"}'
// Scratch (Sokoban): how well does supervised learning on scripted demos teach the tiny model?
// Prints the scripted team's success at a few skills, then SFT loss and held-out success
// (greedy / temperature 1 / 0.5). {"scriptedOnly":true} stops after the scripted numbers.
import { getKernels } from '../../src/engine/kernels/get-kernels.js';
import { LlamaModel } from '../../src/engine/model/llama-model.js';
import { llamaConfig } from '../../src/engine/model/llama-config.js';
import { CharTokenizer } from '../../src/engine/tokenizer/char-tokenizer.js';
import { sokobanTask } from '../../src/envs/sokoban/index.js';
import { EmbeddedPolicy } from '../../src/policy/embedded-policy.js';
import { createScriptedPolicy } from '../../src/policy/scripted-policy.js';
import { collectDemonstrations } from '../../src/train/demonstrations.js';
import { Learner } from '../../src/train/learner.js';
import { warmStart } from '../../src/train/warm-start.js';
import { evaluate } from '../../src/train/evaluate.js';

const a = { size: 6, walls: 0.1, maxMoves: 1, turns: 16, skill: 1, episodes: 600, epochs: 1, hidden: 64, layers: 4, heads: 4, inter: 192, context: 128, lr: 3e-3, batch: 8192, evalTasks: 100, variant: 'team', seed: 1, hint: 'box-goal-open', scriptedOnly: false, skills: [0, 0.3, 0.5, 0.7], ...JSON.parse(process.argv[2] ?? '{}') };
console.log(JSON.stringify(a));
const t0 = performance.now();
const sec = () => ((performance.now() - t0) / 1000).toFixed(1);
const opts = sokobanTask.optionsSchema.parse({ size: a.size, wall_fraction: a.walls, max_moves: a.maxMoves, hint: a.hint, unparseable_reward: -0.5 });
const team = sokobanTask.createTeam(opts, { variant: a.variant, format: 'compact', order: 'sequential', maxTurns: a.turns, alpha: 1 });
const source = sokobanTask.createSource(opts, a.seed);
const rollout = { mode: 'tree' as const, k: 1, temperature: 1, topP: 1, topK: 0, maxTokens: a.maxMoves + 2, stop: ['\n'] };
const pct = (r: { success_rate: number; mean_turns: number; parse_failures: number }) => `${(100 * r.success_rate).toFixed(0)}% turns ${r.mean_turns.toFixed(2)} pf ${r.parse_failures}`;
const scripted = [];
for (const skill of a.skills as number[]) {
  const r = await evaluate({ team, source, policyFor: (role) => createScriptedPolicy({ responder: sokobanTask.scripted, role, skill }), rollout, tasks: 200, temperature: 1, seed: a.seed });
  scripted.push(`skill ${skill}: ${pct(r)}`);
}
console.log(`scripted (200 eval tasks, ${a.turns} turns): ${scripted.join(' | ')} (${sec()}s)`);
if (a.scriptedOnly) process.exit(0);
const kernels = await getKernels();
const tokenizer = CharTokenizer.standard();
const demos = await collectDemonstrations({ team, source, scripted: sokobanTask.scripted, skill: a.skill, episodes: a.episodes, rollout, tokenizer, seed: a.seed, maxTokens: a.context });
const tok = demos.reduce((n, d) => n + d.promptIds.length + d.responseIds.length, 0);
console.log(`demos ${demos.length}, tokens ${tok} (${sec()}s)`);
console.log('example:\n' + tokenizer.decode(demos[1]!.promptIds) + '|' + tokenizer.decode(demos[1]!.responseIds));
const model = LlamaModel.create(kernels, llamaConfig({ hidden: a.hidden, layers: a.layers, heads: a.heads, intermediate: a.inter, vocab: 64, context: a.context }), { seed: a.seed });
const learner = new Learner({ policyId: 'w', model, options: { loss: { kind: 'reinforce', aggregation: 'token-mean', clipLow: 0.2, clipHigh: 0.2, klCoef: 0, klEstimator: 'k3' }, gradClip: 1, weightDecay: 0, microBatchTokens: 16384, logprobTolerance: 1e-3 } });
const policy = new EmbeddedPolicy({ id: 'w', model, tokenizer });
const ev = async (temp: number) => pct(await evaluate({ team, source, policyFor: () => policy, rollout, tasks: a.evalTasks, temperature: temp, seed: a.seed }));
let losses: number[] = [];
warmStart(learner, demos, { epochs: a.epochs, lr: a.lr, batchTokens: a.batch, warmupSteps: 10, seed: a.seed }, (s) => {
  losses.push(s.loss);
  if (s.step % 20 === 0 || s.step === s.steps - 1) { console.log(`step ${s.step}/${s.steps} loss ${(losses.reduce((x, y) => x + y, 0) / losses.length).toFixed(3)} ${sec()}s`); losses = []; }
});
console.log(`sft done ${sec()}s`);
console.log(`greedy ${await ev(0)} | t1 ${await ev(1)} | t0.5 ${await ev(0.5)} (${sec()}s)`);
