import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rollout } from '../rollout/rollout.js';
import { scriptedPolicies } from '../policy/scripted-policies.js';
import { rejection } from '../config/config-error.test-helper.js';
import { TroupeError } from '../util/errors.js';
import { defineTask, type TaskSpec } from './define-task.js';
import { builtInCatalog } from './task-catalog.js';
import type { Env, Role } from './types.js';

class CountEnv implements Env {
  value = 0;
  constructor(readonly taskId: string, readonly target: number) {}
  get done() {
    return this.value >= this.target;
  }
  get success() {
    return this.value === this.target;
  }
  clone(): this {
    const copy = new CountEnv(this.taskId, this.target);
    copy.value = this.value;
    return copy as this;
  }
}

const adder = (name: string, overrides: Partial<Role<CountEnv, number>> = {}): Role<CountEnv, number> => ({
  name,
  prompt: (env) => `T${env.target} V${env.value}\n${name} A:`,
  parse: (text) => (/^\d/.test(text) ? { ok: true, action: Number(text[0]) } : { ok: false, reason: 'no digit' }),
  step: (env, action) => ((env.value += action.ok ? action.action : 0), { local: 0 }),
  ...overrides,
});

function spec(name: string, roles: Array<Role<CountEnv, number>>): TaskSpec<CountEnv, { max: number }> {
  return {
    name,
    options: { max: 5 },
    maxTurns: 3,
    source: (options) => ({ make: (i, split) => new CountEnv(`${name}/${split}/${i}`, 1 + (i % options.max)) }),
    team: () => ({ roles, globalReward: (env) => (env.success ? 1 : 0) }),
    scripted: ({ prompt }) => '1',
  };
}

async function play(task: ReturnType<typeof defineTask<CountEnv, { max: number }>>) {
  const options = task.optionsSchema.parse({});
  const team = task.createTeam(options, { variant: 'team', format: 'compact', order: 'sequential', maxTurns: 3, alpha: 1 });
  return rollout({
    team,
    source: task.createSource(options, 1),
    tasks: [0, 1],
    policyFor: scriptedPolicies(task.scripted, 1),
    options: { mode: 'tree', k: 2, temperature: 1, topP: 1, topK: 0, maxTokens: 2, stop: ['\n'] },
    seed: 1,
    step: 0,
  });
}

const taskError = (fn: () => Promise<unknown>) => rejection('task', fn);

test('a defined task plays like a built-in one; options come from plain defaults, strictly', async () => {
  const task = defineTask(spec('count-ok', [adder('ONE'), adder('TWO')]));
  assert.deepEqual(task.optionsSchema.parse({}), { max: 5 });
  assert.equal(task.optionsSchema.safeParse({ max: 2.5 }).success, false, 'a whole-number default takes whole numbers');
  assert.equal(task.optionsSchema.safeParse({ maxx: 2 }).success, false, 'unknown keys are refused');
  assert.deepEqual(task.teamRoles, ['ONE', 'TWO']);
  const { episodes } = await play(task);
  assert.equal(episodes.length, 2);
  assert.ok(episodes.every((e) => e.success));
});

test('a role that throws is the task\'s fault, naming the task, the role, the call, the instance and the turn', async () => {
  const task = defineTask(spec('count-throws', [adder('ONE'), adder('TWO', { step: () => { throw new Error('boom'); } })]));
  const message = await taskError(() => play(task));
  assert.match(message, /^task "count-throws", role "TWO": step\(\) on count-throws\/train\/1 at turn 0: threw "boom"/);
});

test('a prompt that differs on a clone of the same state is reported, with both texts', async () => {
  let calls = 0;
  const task = defineTask(spec('count-random', [adder('ONE', { prompt: (env) => `T${env.target} ${calls++}` })]));
  const message = await taskError(() => play(task));
  assert.match(message, /role "ONE": prompt\(\) on count-random\/train\/0 at turn 0: a clone of the same state gave another prompt \("T1 0" vs "T1 1"\)/);
});

test('a step that returns no finite local reward is reported', async () => {
  const task = defineTask(spec('count-nan', [adder('ONE', { step: () => ({ local: Number.NaN }) })]));
  assert.match(await taskError(() => play(task)), /role "ONE": step\(\) .*return \{ local: <a finite number> \}/);
});

test('names are unique within one catalog; the same definition may be added twice; another catalog is independent', () => {
  const catalog = builtInCatalog();
  const task = defineTask(spec('count-unique', [adder('ONE')]));
  catalog.add(task, '/x/count.mjs');
  catalog.add(task, '/x/count.mjs');
  assert.equal(catalog.get('count-unique'), task);
  const clash = (fn: () => void) => assert.throws(fn, (e: unknown) => e instanceof TroupeError && e.category === 'config' && /clashes with/.test(e.message));
  clash(() => catalog.add(defineTask(spec('toy', [adder('ONE')])), '/y/toy.mjs'));
  clash(() => catalog.add(defineTask(spec('count-unique', [adder('ONE')])), '/y/other.mjs'));
  assert.throws(() => catalog.add(defineTask(spec('toy', [adder('ONE')])), '/y/toy.mjs'), /the built-in task of that name/);
  const other = builtInCatalog();
  assert.equal(other.has('count-unique'), false, 'a fresh catalog holds only the built-in tasks');
  const second = defineTask(spec('count-unique', [adder('TWO')]));
  other.add(second, '/y/other.mjs');
  assert.equal(other.get('count-unique'), second);
  assert.equal(catalog.get('count-unique'), task, 'the first catalog keeps its own definition');
});

test('defineTask refuses a bad name, a bad turn limit, duplicate role names, and single variants', () => {
  assert.throws(() => defineTask({ ...spec('x', [adder('ONE')]), name: 'has space' }), /name must be letters/);
  assert.throws(() => defineTask({ ...spec('x', [adder('ONE')]), maxTurns: 0 }), /maxTurns must be a whole number >= 1/);
  const twice = defineTask(spec('count-twice', [adder('ONE'), adder('ONE')]));
  assert.throws(() => twice.teamRoles, /two roles are named "ONE"/);
  const task = defineTask(spec('count-single', [adder('ONE')]));
  assert.throws(() => task.createTeam({ max: 5 }, { variant: 'single', format: 'compact', order: 'sequential', maxTurns: 3, alpha: 1 }), /set team.variant: team/);
});

test('a task without a scripted player says what needs one', () => {
  const { scripted: _s, ...rest } = spec('count-noscript', [adder('ONE')]);
  const task = defineTask(rest);
  assert.throws(() => task.scripted({ role: 'ONE', prompt: 'T1 V0', skill: 1, rng: undefined as never }), /warm_start.enabled: false/);
});
