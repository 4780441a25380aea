// npx tsx experiments/lab/sft-probe.ts '{"size":6,"skill":1,"episodes":800,"epochs":1,"context":128,"maxMoves":1,"turns":14,"coords":"open"}'
// Scratch: how well does supervised learning on scripted demos teach the model (greedy / sampled eval).
import { getKernels } from '../../src/engine/kernels/get-kernels.js';
import { LlamaModel } from '../../src/engine/model/llama-model.js';
import { llamaConfig } from '../../src/engine/model/llama-config.js';
import { CharTokenizer } from '../../src/engine/tokenizer/char-tokenizer.js';
import { builtInTask } from '../../src/envs/task-catalog.js';
import { EmbeddedPolicy } from '../../src/policy/embedded-policy.js';
import { collectDemonstrations } from '../../src/train/demonstrations.js';
import { Learner } from '../../src/train/learner.js';
import { warmStart } from '../../src/train/warm-start.js';
import { evaluate } from '../../src/train/evaluate.js';
import { createMoveTeam } from '../../src/envs/grid/move-team.js';
import { planPathPresenter } from '../../src/envs/plan-path/plan-path-presenter.js';
import { planPathGlobalReward } from '../../src/envs/plan-path/plan-path-env.js';
import { rowOf, colOf, neighbor } from '../../src/envs/grid/grid-shape.js';

const a = { size: 10, walls: 0.22, maxMoves: 20, turns: 4, skill: 1, episodes: 1000, epochs: 2, hidden: 64, layers: 4, heads: 4, inter: 192, context: 256, lr: 3e-3, batch: 8192, evalEvery: 0, evalTasks: 100, variant: 'team', seed: 1, coords: 'none', ...JSON.parse(process.argv[2] ?? '{}') };
console.log(JSON.stringify(a));
const t0 = performance.now();
const sec = () => ((performance.now() - t0) / 1000).toFixed(1);
const task = builtInTask('plan-path');
const opts = task.optionsSchema.parse({ size: a.size, wall_fraction: a.walls, max_moves: a.maxMoves });
const presenter = { ...planPathPresenter, status(env: any, format: any) {
  const t = env.task; const pr = rowOf(t.shape, env.pos) + 1, pc = colOf(t.shape, env.pos) + 1, gr = rowOf(t.shape, t.goal) + 1, gc = colOf(t.shape, t.goal) + 1;
  if (a.coords === 'abs') return `P${pr},${pc} G${gr},${gc}`;
  if (a.coords === 'open') {
    const open = ['U','D','L','R'].filter((d) => { const n = neighbor(t.shape, env.pos, d as any); return n >= 0 && t.walls[n] === 0; }).join('');
    const v = gr === pr ? '' : `${gr > pr ? 'D' : 'U'}${Math.abs(gr - pr)}`; const h = gc === pc ? '' : `${gc > pc ? 'R' : 'L'}${Math.abs(gc - pc)}`;
    return `GOAL ${[v, h].filter(Boolean).join(' ')} OPEN ${open}`;
  }
  if (a.coords === 'rel') return `${gr >= pr ? 'D' : 'U'}${Math.abs(gr - pr)} ${gc >= pc ? 'R' : 'L'}${Math.abs(gc - pc)}`;
  return '';
} };
const team = createMoveTeam({ name: 'plan-path', team: { variant: a.variant, format: 'compact', order: 'sequential', maxTurns: a.turns, alpha: 1 }, maxMoves: a.maxMoves, presenter, globalReward: planPathGlobalReward }) as any;
const source = task.createSource(opts, a.seed) as any;
const kernels = await getKernels();
const tokenizer = CharTokenizer.standard();
const rollout = { mode: 'tree' as const, k: 1, temperature: 1, topP: 1, topK: 0, maxTokens: a.maxMoves + 2, stop: ['\n'] };
const demos = await collectDemonstrations({ team, source, scripted: task.scripted, skill: a.skill, episodes: a.episodes, rollout, tokenizer, seed: a.seed, maxTokens: a.context });
const tok = demos.reduce((n, d) => n + d.promptIds.length + d.responseIds.length, 0);
console.log(`demos ${demos.length}, tokens ${tok}, resp tokens ${demos.reduce((n, d) => n + d.responseIds.length, 0)} (${sec()}s)`);
console.log('example:\n' + tokenizer.decode(demos[1]!.promptIds) + '|' + tokenizer.decode(demos[1]!.responseIds));
const model = LlamaModel.create(kernels, llamaConfig({ hidden: a.hidden, layers: a.layers, heads: a.heads, intermediate: a.inter, vocab: 64, context: a.context }), { seed: a.seed });
const learner = new Learner({ policyId: 'w', model, options: { loss: { kind: 'reinforce', aggregation: 'token-mean', clipLow: 0.2, clipHigh: 0.2, klCoef: 0, klEstimator: 'k3' }, gradClip: 1, weightDecay: 0, microBatchTokens: 16384, logprobTolerance: 1e-3 } });
const policy = new EmbeddedPolicy({ id: 'w', model, tokenizer });
const ev = async (temp: number) => {
  const r = await evaluate({ team, source, policyFor: () => policy, rollout, tasks: a.evalTasks, temperature: temp, seed: a.seed });
  return `${(100 * r.success_rate).toFixed(0)}% turns ${r.mean_turns.toFixed(2)} pf ${r.parse_failures}`;
};
let losses: number[] = [];
const hist = warmStart(learner, demos, { epochs: a.epochs, lr: a.lr, batchTokens: a.batch, warmupSteps: 10, seed: a.seed }, (s) => {
  losses.push(s.loss);
  if (s.step % 20 === 0 || s.step === s.steps - 1) { console.log(`step ${s.step}/${s.steps} loss ${(losses.reduce((x, y) => x + y, 0) / losses.length).toFixed(3)} ${sec()}s`); losses = []; }
});
console.log(`sft done ${sec()}s`);
console.log(`greedy ${await ev(0)} | t1 ${await ev(1)} | t0.5 ${await ev(0.5)} (${sec()}s)`);
if (a.save) { const { saveModel } = await import('../../src/engine/io/model-checkpoint.js'); saveModel(a.save, model, tokenizer, { overwrite: true }); }
if (a.show) {
  const { rollout: ro } = await import('../../src/rollout/rollout.js');
  const r = await ro({ team, source, tasks: [0, 1, 2], split: 'eval', policyFor: () => policy, options: { ...rollout, temperature: 0 }, seed: a.seed, step: 0 });
  for (const s of r.samples.slice(0, 24)) console.log(`--- ${s.task_id ?? ''} t${s.turn} ${s.role}\n${s.prompt}|${s.response}  r=${s.reward.total}`);
}
