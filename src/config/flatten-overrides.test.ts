// Typed overrides ({ train: { steps: 40 } }) are --set overrides by another name: same order
// (after `set`), same schema, same errors naming the key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flattenOverrides } from './flatten-overrides.js';
import { readConfig } from './read-config.js';

test('flattenOverrides: nested sections become dotted keys; arrays and scalars are replaced whole', () => {
  assert.deepEqual(flattenOverrides({ train: { steps: 40, lr: 0.5 }, rollout: { stop: [] }, seed: 3, model: undefined }), [
    { key: 'train.steps', value: 40, text: 'train.steps=40' },
    { key: 'train.lr', value: 0.5, text: 'train.lr=0.5' },
    { key: 'rollout.stop', value: [], text: 'rollout.stop=[]' },
    { key: 'seed', value: 3, text: 'seed=3' },
  ]);
});

test('readConfig applies typed overrides after set, and a bad value is an error naming the key', async () => {
  const config = { tasks: { name: 'toy' }, train: { steps: 5 } };
  const resolved = await readConfig({ config, set: ['train.steps=7', 'train.lr=0.25'], overrides: { train: { steps: 9 } } });
  assert.equal(resolved.train.steps, 9, 'the typed override wins over set');
  assert.equal(resolved.train.lr, 0.25);
  // A caller without the types (plain JavaScript) still gets the schema's message.
  await assert.rejects(readConfig({ config, overrides: { train: { steps: 'many' } } as never }), /train\.steps/);
  await assert.rejects(readConfig({ config, overrides: { train: { stpes: 3 } } as never }), /stpes/);
});
