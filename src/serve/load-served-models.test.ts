import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { loadServedModels, resolveServeLayout } from './load-served-models.js';
import { makeTinyModelDir } from './tiny-model.test-helper.js';

test('a model folder serves its base and one name per adapter folder', () => {
  const folder = makeTinyModelDir({ adapters: ['tool', 'plan'] });
  try {
    const models = loadServedModels(createReferenceKernels(), folder.dir, { name: 'mini' });
    assert.deepEqual(models.map((m) => [m.name, m.adapter, m.parent]), [['mini', undefined, undefined], ['mini:plan', 'plan', 'mini'], ['mini:tool', 'tool', 'mini']]);
    assert.equal(models[1]!.model, models[0]!.model, 'adapters share the base weights');
    assert.throws(() => loadServedModels(createReferenceKernels(), folder.dir, { name: 'a:b' }), /no ':'/);
  } finally {
    folder.remove();
  }
});

test('a run folder serves the newest checkpoint: policies as <run>:<id>, adapters on the run base', () => {
  const folder = makeTinyModelDir({ adapters: ['tool'] });
  const run = join(folder.dir, '..', 'my-run');
  try {
    cpSync(folder.dir, join(run, 'base'), { recursive: true });
    for (const step of ['step-000001', 'step-000012', 'step-000003']) {
      const dir = join(run, 'checkpoints', step);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'state.json'), '{}');
      cpSync(folder.dir, join(dir, 'policies', `shared-${step}`), { recursive: true });
    }
    // Adapters name their base relative to their own folder, as the trainer writes them.
    const adapterDir = join(run, 'checkpoints', 'step-000012', 'adapters', 'tool');
    cpSync(join(folder.dir, 'adapters', 'tool'), adapterDir, { recursive: true });
    const layout = resolveServeLayout(run);
    assert.deepEqual(layout.bases.map((b) => b.name), ['my-run:shared-step-000012', 'my-run']);
    assert.deepEqual(layout.adapters.map((a) => [a.name, a.base]), [['my-run:tool', 'my-run']]);
    const names = loadServedModels(createReferenceKernels(), run).map((m) => m.name);
    assert.deepEqual(names, ['my-run:shared-step-000012', 'my-run', 'my-run:tool']);
    assert.throws(() => resolveServeLayout(join(run, 'checkpoints')), /neither config.json/);
  } finally {
    folder.remove();
  }
});
