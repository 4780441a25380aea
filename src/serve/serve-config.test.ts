// `policy.kind: openai` end to end: troupe rollout and troupe eval playing a team through a
// troupe serve started in-process, including a mixed team (one role served, one scripted).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runEval } from '../api/run-eval.js';
import { runRollout } from '../api/run-rollout.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { loadServedModels } from './load-served-models.js';
import { startServer, type RunningServer } from './server.js';
import { makeTinyModelDir, type TinyModelDir } from './tiny-model.test-helper.js';

let folder: TinyModelDir;
let server: RunningServer;
let config: string;

before(async () => {
  folder = makeTinyModelDir({ adapters: ['plan', 'tool'] });
  server = await startServer({ models: loadServedModels(createReferenceKernels(), folder.dir), port: 0, log: () => {} });
  config = join(folder.dir, '..', 'served.yaml');
  writeFileSync(
    config,
    [
      'tasks: { name: plan-path, size: 4, wall_fraction: 0.2 }',
      'team: { variant: team, format: compact, max_turns: 2 }',
      'rollout: { k: 2, tasks: 2, max_tokens: 8, temperature: 1 }',
      'train: { eval_tasks: 2 }',
      'policy:',
      '  kind: openai',
      '  openai:',
      `    base_url: ${server.url}/v1`,
      '    model: tiny',
      '    models: { plan: "tiny:plan" }',
      '',
    ].join('\n'),
  );
});

after(async () => {
  await server.close();
  folder.remove();
});

function samplesOf(path: string): Array<Record<string, any>> {
  return readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
}

test('troupe rollout with kind openai samples every role from the server, with token ids', async () => {
  const out = join(folder.dir, '..', 'served.jsonl');
  await runRollout({ config, out, print: () => {} });
  const samples = samplesOf(out);
  assert.ok(samples.length >= 8);
  assert.deepEqual([...new Set(samples.map((s) => `${s.role}=${s.policy}`))].sort(), ['plan=openai:tiny:plan', 'tool=openai:tiny']);
  assert.ok(samples.every((s) => Array.isArray(s.response_ids) && Array.isArray(s.prompt_ids) && s.prompt_ids[0] === 1));
});

test('a mixed team: only policy.openai.roles are served, the others play as the configured kind', async () => {
  const out = join(folder.dir, '..', 'mixed.jsonl');
  await runRollout({ config, out, set: ['policy.kind=scripted', 'policy.openai.roles=[plan]'], print: () => {} });
  const policies = new Map(samplesOf(out).map((s) => [s.role, s.policy]));
  assert.equal(policies.get('plan'), 'openai:tiny:plan');
  assert.doesNotMatch(policies.get('tool')!, /^openai:/);
});

test('troupe eval scores a served team on held-out tasks', async () => {
  const result = await runEval({ target: config });
  assert.equal(result.n, 2);
  assert.match(result.source, /tool: tiny, plan: tiny:plan/);
  assert.deepEqual(Object.keys(result.roles).sort(), ['plan', 'tool']);
});
