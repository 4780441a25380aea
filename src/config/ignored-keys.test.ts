import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyOverrides, parseOverride } from './apply-overrides.js';
import { configError } from './config-error.test-helper.js';
import { resolveConfig, type ResolvedConfig } from './resolve-config.js';

/** Resolves `file` with `--set` overrides, as loadConfig does. */
function resolve(file: Record<string, unknown>, sets: string[] = []): ResolvedConfig {
  const overrides = sets.map(parseOverride);
  return resolveConfig(applyOverrides(file, overrides), { overrides });
}

const toy = { name: 'toy' };
const openai = { base_url: 'http://127.0.0.1:8000/v1', model: 'tiny' };

test('policy keys of another kind are errors naming the key, the kind and the fix', () => {
  let message = configError(() => resolve({ tasks: toy, policy: { kind: 'embedded', skill: 0.9 } }));
  assert.match(message, /policy\.skill: has no effect here: only the scripted player reads it, and policy\.kind is embedded/);
  assert.match(message, /warm_start\.skill/, 'points an embedded user at the skill that does act');
  message = configError(() => resolve({ tasks: toy, policy: { map: 'per-role' } }));
  assert.match(message, /policy\.map: .*policy\.kind is scripted; remove it or set policy\.kind: embedded/);
  message = configError(() => resolve({ tasks: toy, policy: { kind: 'reference', models: { a: { hidden: 32 } } } }));
  assert.match(message, /policy\.models: .*policy\.kind is reference/);
  // The same keys with their own kind are fine.
  assert.equal(resolve({ tasks: toy, policy: { kind: 'scripted', skill: 0.9 } }).policy.skill, 0.9);
  assert.equal(resolve({ tasks: toy, policy: { kind: 'embedded', map: 'per-role' } }).policy.map, 'per-role');
});

test('an openai section must serve some role; openai.roles only picks the served roles of a mixed team', () => {
  assert.match(
    configError(() => resolve({ tasks: toy, policy: { kind: 'scripted', openai } })),
    /policy\.openai: has no effect here: with policy\.kind scripted the server plays only the roles listed in policy\.openai\.roles/,
  );
  assert.match(
    configError(() => resolve({ tasks: toy, policy: { kind: 'openai', openai: { ...openai, roles: ['plan'] } } })),
    /policy\.openai\.roles: .*with policy\.kind openai the server plays every role/,
  );
  assert.deepEqual(resolve({ tasks: toy, policy: { kind: 'scripted', openai: { ...openai, roles: ['plan'] } } }).policy.openai?.roles, ['plan']);
  assert.equal(resolve({ tasks: toy, policy: { kind: 'openai', openai } }).policy.kind, 'openai');
});

test('--set policy.kind sets aside the file keys of the old kind (back to their defaults), but not keys given by --set', () => {
  // The examples' pattern: a scripted file trained or evaluated with another kind.
  const file = { tasks: toy, policy: { kind: 'scripted', skill: 0.9 } };
  const trained = resolve(file, ['policy.kind=embedded']);
  assert.deepEqual([trained.policy.kind, trained.policy.skill], ['embedded', 0.5], 'the skill that acts nowhere is reset');
  assert.equal(resolve(file, ['policy.kind=reference']).policy.kind, 'reference');
  assert.match(configError(() => resolve(file, ['policy.kind=embedded', 'policy.skill=0.8'])), /policy\.skill: has no effect here.*\(from --set policy\.skill=0\.8\)/);
  // Without the switch the same file contradiction is reported.
  assert.match(configError(() => resolve({ tasks: toy, policy: { kind: 'embedded', skill: 0.9 } })), /policy\.skill/);
});

test('a key spelled out at its default is not a mistake: a resolved config (a run folder\'s config.yaml) resolves again', () => {
  assert.equal(resolve({ tasks: toy, policy: { kind: 'embedded', skill: 0.5, map: 'shared' } }).policy.kind, 'embedded');
  for (const [file, sets] of [
    [{ tasks: toy, policy: { kind: 'embedded', map: 'per-role' }, train: { kl_coef: 0 } }, []],
    [{ tasks: toy, algorithm: 'magrpo', team: { variant: 'single' } }, []],
    [{ tasks: toy, policy: { kind: 'scripted', skill: 0.9 } }, ['policy.kind=embedded']],
  ] as Array<[Record<string, unknown>, string[]]>) {
    const { magrpo, ...saved } = resolve(file, sets);
    const again = resolveConfig(JSON.parse(JSON.stringify(file.algorithm === 'magrpo' ? { ...saved, magrpo } : saved)));
    assert.deepEqual(again, resolve(file, sets));
  }
});

test('model.path loads a folder: fresh-model sizes and the warm start would do nothing', () => {
  const message = configError(() => resolve({ tasks: toy, policy: { kind: 'embedded' }, model: { path: 'runs/x/base', hidden: 32, tokenizer: 'ascii' }, warm_start: { episodes: 10 } }));
  assert.match(message, /3 problems/);
  assert.match(message, /model\.hidden: has no effect here: model\.path loads runs\/x\/base/);
  assert.match(message, /model\.tokenizer: /);
  assert.match(message, /warm_start\.episodes: .*the warm start teaches a new model/);
  // Per-policy sizes build new models even next to model.path, so their warm start acts.
  const own = resolve({ tasks: toy, policy: { kind: 'embedded', map: { tool: 'a', plan: 'b' }, models: { b: { hidden: 32 } } }, model: { path: 'm' }, warm_start: { episodes: 10 } });
  assert.equal(own.warm_start.episodes, 10);
  // Pointing a config with sizes at a folder from the command line is allowed.
  assert.equal(resolve({ tasks: toy, policy: { kind: 'embedded' }, model: { hidden: 32 } }, ['model.path=runs/x/base']).model.path, 'runs/x/base');
});

test('advantage.group_by acts only under at-grpo', () => {
  assert.match(configError(() => resolve({ tasks: toy, algorithm: 'grpo', advantage: { group_by: 'task-role' } })), /advantage\.group_by: .*algorithm grpo/);
  assert.equal(resolve({ tasks: toy, algorithm: 'at-grpo', advantage: { group_by: 'task-turn' } }).advantage.group_by, 'task-turn');
});

test('keys that depend on another key of their section: warm start off, lora map, loss, KL, credit, order', () => {
  assert.match(configError(() => resolve({ tasks: toy, warm_start: { enabled: false, epochs: 3 } })), /warm_start\.epochs: .*warm_start\.enabled is false/);
  assert.match(configError(() => resolve({ tasks: toy, policy: { kind: 'embedded', map: 'per-role' }, model: { lora: { r: 4 } } })), /model\.lora: .*policy\.map: lora/);
  assert.equal(resolve({ tasks: toy, policy: { kind: 'embedded', map: 'lora' }, model: { lora: { r: 4 } } }).model.lora.r, 4);
  // magrpo's default loss is reinforce, which has no ratio to clip.
  assert.match(configError(() => resolve({ tasks: toy, algorithm: 'magrpo', train: { clip_high: 0.3 } })), /train\.clip_high: .*the loss is reinforce/);
  assert.equal(resolve({ tasks: toy, algorithm: 'magrpo', train: { loss: 'ppo-clip', clip_high: 0.3 } }).train.clip_high, 0.3);
  assert.match(configError(() => resolve({ tasks: toy, train: { kl_estimator: 'k1' } })), /train\.kl_estimator: .*kl_coef is 0/);
  assert.equal(resolve({ tasks: toy, train: { kl_coef: 0.1, kl_estimator: 'k1' } }).train.kl_estimator, 'k1');
  assert.match(configError(() => resolve({ tasks: toy, algorithm: 'magrpo', magrpo: { credit: 'mean' } })), /magrpo\.credit: .*magrpo\.joint: cross/);
  assert.equal(resolve({ tasks: toy, algorithm: 'magrpo', magrpo: { joint: 'cross', credit: 'mean' } }).magrpo.credit, 'mean');
  assert.match(configError(() => resolve({ tasks: toy, team: { variant: 'single', order: 'parallel' } })), /team\.order: .*team\.variant single has one role/);
  assert.match(configError(() => resolve({ tasks: toy, algorithm: 'magrpo', team: { alpha: 0.5 } })), /team\.alpha: .*scores every response by the joint reward/);
  assert.equal(resolve({ tasks: toy, team: { alpha: 0.5 } }).team.alpha, 0.5);
});

test('unset keys never count: defaults of every section resolve for every kind', () => {
  for (const kind of ['scripted', 'embedded', 'reference']) assert.equal(resolve({ tasks: toy, policy: { kind } }).policy.kind, kind);
  assert.equal(resolve({ tasks: toy, policy: { kind: 'embedded' }, model: { path: 'm' } }).model.path, 'm');
  assert.equal(resolve({ tasks: toy, algorithm: 'magrpo' }).train.loss, 'reinforce');
  // Training sections under a kind that does not train are harmless (troupe train reads them).
  assert.equal(resolve({ tasks: toy, policy: { kind: 'scripted' }, model: { hidden: 32 }, train: { steps: 3 } }).model.hidden, 32);
});

test('a run folder\'s config (savedRun) sets its inert keys aside; the same key from --set is still an error', () => {
  const saved = { tasks: toy, policy: { kind: 'embedded', map: 'per-role' }, model: { lora: { r: 8, train_unembed: false } } };
  assert.match(configError(() => resolve(saved)), /model\.lora: has no effect here/);
  const config = resolveConfig(saved, { savedRun: true });
  assert.equal(config.model.lora.train_unembed, true, 'reset to the default, as it acts nowhere');
  const overrides = [parseOverride('model.lora.r=4')];
  assert.match(configError(() => resolveConfig(applyOverrides(saved, overrides), { overrides, savedRun: true })), /model\.lora: has no effect here/);
});
