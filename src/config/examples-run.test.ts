// Every example config runs as shipped: the command on its first line (`# npx troupe rollout
// examples/x.yaml [--set key=value]`) is run through the public API with overrides that only
// shrink it (fewer tasks, branches, turns and steps), so a config the schema accepts but the
// run refuses, a dataset or `tasks.module` that is not there (a TypeScript module loads as
// shipped), or a task that breaks on its options fails here instead of for a user. Examples whose task runs programs skip where the
// code sandbox cannot run (one reason line, as the sandbox's own tests do).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import YAML from 'yaml';
import { repoRoot } from '../util/repo-root.test-helper.js';
import { testDir } from '../util/test-dir.test-helper.js';
import { sandboxSkip, sandboxSkipFor } from '../sandbox/sandbox-skip.test-helper.js';

const { rollout, train } = await import('troupe');

const root = repoRoot();

function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? yamlFiles(path) : name.endsWith('.yaml') ? [path] : [];
    })
    .sort();
}

/** The verb and `--set` overrides of the `# npx troupe <verb> <file> ...` line an example opens with. */
function commandOf(path: string): { verb: 'rollout' | 'train'; set: string[] } {
  const first = readFileSync(path, 'utf8').split('\n')[0]!;
  const match = /^# npx troupe (rollout|train) (\S+)((?: --set \S+)*)/.exec(first);
  assert.ok(match, `${relative(root, path)}: the first line should be the command that runs it (# npx troupe rollout|train <file> ...), got ${JSON.stringify(first)}`);
  assert.equal(basename(match[2]!), basename(path), `${relative(root, path)}: its command names another file`);
  return { verb: match[1] as 'rollout' | 'train', set: [...match[3]!.matchAll(/--set (\S+)/g)].map((m) => m[1]!) };
}

/** Why an example cannot run here (its task runs programs and there is no sandbox), or false. */
function skipReason(path: string, set: readonly string[]): false | string {
  const config = YAML.parse(readFileSync(path, 'utf8')) as { tasks?: { name?: string }; team?: { format?: string } };
  const policy = set.find((s) => s.startsWith('policy.kind='));
  // A natural-format team writes programs the task runs; a reference player of a code task runs its tests.
  if (config.team?.format === 'natural' || policy === 'policy.kind=reference') return sandboxSkip;
  return sandboxSkipFor(config.tasks?.name ?? '');
}

// Only smaller: one task, two branches, few turns, a narrow model, one RL step after a few
// warm-start episodes. Nothing else changes: the task, its options, the team, the algorithm.
const SMALL_ROLLOUT = ['rollout.k=2', 'team.max_turns=1'];
const SMALL_TRAIN = [
  'rollout.k=2',
  'rollout.tasks=1',
  'team.max_turns=2',
  'model.hidden=16',
  'model.layers=1',
  'model.heads=2',
  'model.intermediate=32',
  'warm_start.episodes=4',
  'warm_start.epochs=1',
  'warm_start.max_turns=2',
  'train.steps=1',
  'train.eval_every=1',
  'train.eval_tasks=2',
  'train.checkpoint_every=1',
];

const examples = yamlFiles(join(root, 'examples'));

test('the examples folder has configs to run, among them a task module of its own', () => {
  assert.ok(examples.length >= 20, `found ${examples.length}`);
  assert.ok(examples.some((path) => (YAML.parse(readFileSync(path, 'utf8')) as { tasks?: { module?: string } }).tasks?.module !== undefined));
});

// Concurrently: most of an example's time is spent waiting for sandboxed programs.
describe('examples', { concurrency: 4 }, () => {
  for (const path of examples) {
    const name = relative(root, path);
    const command = commandOf(path);
    test(`${name} runs as shipped (troupe ${command.verb}, made small)`, { skip: skipReason(path, command.set) }, async () => {
      const config = path;
      if (command.verb === 'rollout') {
        const played = await rollout({ config, set: [...command.set, ...SMALL_ROLLOUT], count: 1 });
        assert.ok(played.summary.episodes >= 1, `${name}: no episode played`);
        assert.ok(played.samples.length > 0, `${name}: no samples`);
        assert.equal(played.summary.generationErrors, 0, `${name}: generation errors`);
      } else {
        const run = await train({ config, set: [...command.set, ...SMALL_TRAIN], runDir: join(testDir('troupe-example-'), 'run'), progress: false });
        assert.deepEqual([run.lastStep, run.interrupted, run.finalEval?.n], [0, false, 2], `${name}: one step and an evaluation of 2 held-out tasks`);
      }
    });
  }
});
