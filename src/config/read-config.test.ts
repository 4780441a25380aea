import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { testDir } from '../util/test-dir.test-helper.js';
import { rejection } from './config-error.test-helper.js';
import { defineTask } from '../envs/define-task.js';
import { readConfig } from './read-config.js';
import { taskOf } from './task-of-config.js';

const dir = testDir('troupe-read-config-');
const defineTaskUrl = pathToFileURL(join(import.meta.dirname, '..', 'envs', 'define-task.js')).href;

/** A task module in `dir/tasks/` whose default export is a one-role task called `name`. */
function taskModule(file: string, name: string): void {
  mkdirSync(join(dir, 'tasks'), { recursive: true });
  writeFileSync(
    join(dir, 'tasks', file),
    `import { defineTask } from ${JSON.stringify(defineTaskUrl)};
class E { constructor(id) { this.taskId = id; this.n = -1; } get done() { return this.n >= 0; } get success() { return this.n === 1; } clone() { const c = new E(this.taskId); c.n = this.n; return c; } }
export default defineTask({
  name: ${JSON.stringify(name)},
  options: { size: 3 },
  maxTurns: 2,
  source: () => ({ make: (i, split) => new E(${JSON.stringify(name)} + '/' + split + '/' + i) }),
  team: () => ({ roles: [{ name: 'ONE', prompt: () => 'P', parse: (t) => ({ ok: true, action: Number(t) }), step: (env, a) => ((env.n = a.ok ? a.action : 0), { local: 0 }) }], globalReward: (env) => env.n }),
  scripted: () => '1',
});
`,
  );
}

const configError = (fn: () => Promise<unknown>) => rejection('config', fn);

test('tasks.module is relative to the config file; the resolved config keeps its absolute path and the options', async () => {
  taskModule('one.mjs', 'module-one');
  writeFileSync(join(dir, 'run.yaml'), 'tasks:\n  module: ./tasks/one.mjs\n  size: 4\n');
  const config = await readConfig({ config: join(dir, 'run.yaml'), set: ['seed=3'] });
  assert.deepEqual(config.tasks, { name: 'module-one', module: join(dir, 'tasks', 'one.mjs'), size: 4 });
  assert.equal(config.team.max_turns, 2, "the task's maxTurns is the default turn limit");
  assert.equal(config.seed, 3);
  assert.equal(config.name, 'module-one');
});

test("a module's options are checked by its own schema, and a tasks.name that differs is refused", async () => {
  taskModule('two.mjs', 'module-two');
  writeFileSync(join(dir, 'bad-option.yaml'), 'tasks:\n  module: ./tasks/two.mjs\n  sise: 4\n');
  assert.match(await configError(() => readConfig({ config: join(dir, 'bad-option.yaml') })), /tasks.*sise/);
  writeFileSync(join(dir, 'bad-name.yaml'), 'tasks:\n  name: other\n  module: ./tasks/two.mjs\n');
  assert.match(await configError(() => readConfig({ config: join(dir, 'bad-name.yaml') })), /tasks.name "other" differs from the name of the task in tasks.module \("module-two"\); drop tasks.name/);
});

test('a missing module, one without a task as default export, and a TypeScript module outside tsx each get one line', async () => {
  writeFileSync(join(dir, 'missing.yaml'), 'tasks:\n  module: ./tasks/nope.mjs\n');
  assert.match(await configError(() => readConfig({ config: join(dir, 'missing.yaml') })), /^tasks.module "\.\/tasks\/nope.mjs": no such file .*nope.mjs \(the path is relative to the config file\)$/);
  writeFileSync(join(dir, 'tasks', 'plain.mjs'), 'export default { name: "x" };\n');
  writeFileSync(join(dir, 'plain.yaml'), 'tasks:\n  module: ./tasks/plain.mjs\n');
  assert.match(await configError(() => readConfig({ config: join(dir, 'plain.yaml') })), /its default export is not a task definition: task "x" has no createSource, createTeam, scripted/);
  writeFileSync(join(dir, 'tasks', 'typed.ts'), 'const task: { name: string } = { name: "typed" };\nexport default task;\n');
  writeFileSync(join(dir, 'typed.yaml'), 'tasks:\n  module: ./tasks/typed.ts\n');
  // A TypeScript module imports (transpiled where Node cannot strip types), then is judged as any module.
  const typed = await configError(() => readConfig({ config: join(dir, 'typed.yaml') }));
  assert.match(typed, /^tasks.module "\.\/tasks\/typed.ts": its default export is not a task definition: task "typed" has no/);
  writeFileSync(join(dir, 'tasks', 'broken.ts'), 'export default { name: ;\n');
  writeFileSync(join(dir, 'broken.yaml'), 'tasks:\n  module: ./tasks/broken.ts\n');
  assert.match(await configError(() => readConfig({ config: join(dir, 'broken.yaml') })), /^tasks.module "\.\/tasks\/broken.ts": importing it failed: /);
  assert.deepEqual(readdirSync(join(dir, 'tasks')).filter((f) => f.endsWith('.mjs') && f.startsWith('.')), [], 'no transpiled file is left beside the source');
});

test('tasks given in code: a config object without a tasks section plays the one task given', async () => {
  taskModule('three.mjs', 'module-three');
  const task = (await import(pathToFileURL(join(dir, 'tasks', 'three.mjs')).href)).default;
  const config = await readConfig({ config: { train: { steps: 2 } }, tasks: [task] });
  assert.equal(config.tasks.name, 'module-three');
  assert.equal(config.train.steps, 2);
  const unknown = await configError(() => readConfig({ config: { tasks: { name: 'module-four' } } }));
  assert.match(unknown, /unknown task "module-four"; known tasks: plan-path, .*toy/);
  assert.doesNotMatch(unknown, /module-three/, 'the task given to the call before is not this call\'s');
});

test('tasks belong to the call that was given them: two calls with different tasks of the same name each play their own', async () => {
  taskModule('same-a.mjs', 'same-name');
  const fromModule = await readConfig({ config: { tasks: { module: join(dir, 'tasks', 'same-a.mjs') } } });
  const other = defineTask({
    name: 'same-name',
    options: { width: 7 },
    maxTurns: 5,
    source: () => ({ make: (i: number, split: string) => ({ taskId: `other/${split}/${i}`, done: true, success: true, clone() { return this; } }) }),
    team: () => ({ roles: [{ name: 'TWO', prompt: () => 'Q', parse: () => ({ ok: true as const, action: 0 }), step: () => ({ local: 0 }) }], globalReward: () => 1 }),
    scripted: () => '0',
  });
  const fromCode = await readConfig({ config: {}, tasks: [other] });
  assert.deepEqual([fromModule.tasks, fromCode.tasks], [{ name: 'same-name', module: join(dir, 'tasks', 'same-a.mjs'), size: 3 }, { name: 'same-name', width: 7 }]);
  assert.deepEqual([taskOf(fromModule).teamRoles, taskOf(fromCode).teamRoles], [['ONE'], ['TWO']]);
  assert.deepEqual([fromModule.team.max_turns, fromCode.team.max_turns], [2, 5]);
  const spread: typeof fromCode = { ...fromCode, seed: 3 };
  assert.equal(taskOf(spread), other, 'a spread of the resolved config keeps its task');
  assert.match(await configError(() => readConfig({ config: { tasks: { name: 'same-name' } } })), /unknown task "same-name"/, 'a third call without the task does not see it');
});
