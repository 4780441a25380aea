import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { testDir } from '../util/test-dir.test-helper.js';
import { rejection } from './config-error.test-helper.js';
import { readConfig } from './read-config.js';

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
  writeFileSync(join(dir, 'tasks', 'typed.ts'), 'export default {};\n');
  writeFileSync(join(dir, 'typed.yaml'), 'tasks:\n  module: ./tasks/typed.ts\n');
  const typed = await configError(() => readConfig({ config: join(dir, 'typed.yaml') }));
  // Under tsx the .ts file imports (and then fails as no task definition); under plain Node it cannot.
  assert.match(typed, /Node cannot import TypeScript by itself; run troupe under tsx|its default export is not a task definition/);
});

test('tasks given in code: a config object without a tasks section plays the one task given', async () => {
  taskModule('three.mjs', 'module-three');
  const task = (await import(pathToFileURL(join(dir, 'tasks', 'three.mjs')).href)).default;
  const config = await readConfig({ config: { train: { steps: 2 } }, tasks: [task] });
  assert.equal(config.tasks.name, 'module-three');
  assert.equal(config.train.steps, 2);
  assert.match(await configError(() => readConfig({ config: { tasks: { name: 'module-four' } } })), /unknown task "module-four"; registered tasks: .*module-three/);
});
