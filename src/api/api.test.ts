// The public API end to end, through the package's own name (Node resolves `troupe` to this
// package via its exports map): a user task trained, scored and played with the verbs only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { testDir } from '../util/test-dir.test-helper.js';

const troupe = await import('troupe');
const { defineConfig, defineTask, train, evaluate, rollout, Rng } = troupe;

class PickEnv {
  answer = -1;
  constructor(readonly taskId: string, readonly secret: number) {}
  get done() {
    return this.answer >= 0;
  }
  get success() {
    return this.answer === this.secret;
  }
  clone(): this {
    return Object.assign(new PickEnv(this.taskId, this.secret), { answer: this.answer }) as this;
  }
}

const pick = defineTask({
  name: 'api-pick',
  options: { digits: 4 },
  maxTurns: 1,
  source: (options, seed) => ({ make: (i, split) => new PickEnv(`api-pick/${split}/${i}`, Rng.derive(seed, split, i).int(options.digits)) }),
  team: () => ({
    roles: [
      { name: 'PICK', prompt: (env: PickEnv) => `S${env.secret}\nA:`, parse: (t: string) => (/^\d/.test(t) ? { ok: true as const, action: Number(t[0]) } : { ok: false as const, reason: 'no digit' }), step: (env: PickEnv, a: { ok: boolean; action?: number }) => ((env.answer = a.ok ? a.action! : 9), { local: 0 }) },
    ],
    globalReward: (env: PickEnv) => (env.success ? 1 : 0),
  }),
  scripted: ({ prompt, skill, rng }) => String(rng.next() < skill ? Number(prompt[1]) : rng.int(4)),
});

test('the package root exports the verbs and the vocabulary, and nothing internal is reachable', async () => {
  for (const name of ['defineConfig', 'defineTask', 'train', 'evaluate', 'rollout', 'serve', 'compare', 'readConfig', 'Rng', 'z', 'TroupeError']) {
    assert.ok(name in troupe, `troupe exports ${name}`);
  }
  await assert.rejects(import('troupe/dist/src/util/rng.js' as string), (e: NodeJS.ErrnoException) => e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED');
});

test('train, evaluate and rollout take a task from code and a config object', async () => {
  const runDir = join(testDir('troupe-api-'), 'run');
  const config = defineConfig({
    team: { format: 'compact' },
    rollout: { k: 4, tasks: 4, max_tokens: 2 },
    policy: { kind: 'embedded' },
    model: { hidden: 16, layers: 1, heads: 2, intermediate: 32, context: 16 },
    warm_start: { episodes: 40, epochs: 1, batch_tokens: 256 },
    train: { steps: 2, eval_every: 1, eval_tasks: 8, checkpoint_every: 1 },
  });
  const run = await train({ config, tasks: [pick], runDir, progress: false });
  assert.equal(run.runDir, runDir);
  assert.equal(run.lastStep, 1);
  assert.equal(run.finalEval?.n, 8);
  const score = await evaluate({ run: runDir, tasks: [pick], count: 8 });
  assert.deepEqual([score.n, score.successRate], [8, run.finalEval!.success_rate], 'the run scores the same as its last eval');
  const played = await rollout({ config: { policy: { kind: 'scripted', skill: 1 } }, tasks: [pick], count: 3 });
  assert.equal(played.summary.successRate, 1);
  assert.deepEqual([...new Set(played.samples.map((s) => s.role))], ['PICK']);
  await assert.rejects(evaluate({ tasks: [pick] }), /give exactly one of run .* or config/);
});

test('a training run warns once when a role\'s prompts hold characters the model reads as <unk>', async () => {
  const lower = defineTask({
    name: 'api-pick-lower',
    maxTurns: 1,
    source: (_options, seed) => ({ make: (i, split) => new PickEnv(`api-pick-lower/${split}/${i}`, Rng.derive(seed, split, i).int(4)) }),
    team: () => ({
      roles: [{ name: 'pick', prompt: (env: PickEnv) => `pick ${env.secret}\nA:`, parse: () => ({ ok: false as const, reason: 'never' }), step: (env: PickEnv) => ((env.answer = 9), { local: 0 }) }],
      globalReward: () => 0,
    }),
    scripted: () => '1',
  });
  let text = '';
  await train({
    config: { rollout: { k: 2, tasks: 2, max_tokens: 2 }, policy: { kind: 'embedded' }, model: { hidden: 16, layers: 1, heads: 2, intermediate: 32, context: 16 }, warm_start: { episodes: 10, epochs: 1, batch_tokens: 256 }, train: { steps: 2, eval_every: 0, eval_tasks: 2 } },
    tasks: [lower],
    runDir: join(testDir('troupe-api-unk-'), 'run'),
    progress: { write: (chunk: string) => ((text += chunk), true) },
  });
  const warnings = text.split('\n').filter((line) => line.startsWith('warning: role'));
  assert.deepEqual(warnings.length, 1, text);
  assert.match(warnings[0]!, /^warning: role "pick"'s prompts contain characters the model's tokenizer reads as <unk>: "p" "i" "c" "k";/);
});
