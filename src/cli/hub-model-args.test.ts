// Model arguments that are hub ids (resolved through the Hugging Face cache under HF_HOME),
// and model folders without tokenizer.json scored by --ids.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeCachedSnapshot } from '../engine/hub/fake-hub.test-helper.js';
import { loadModel, saveModelAdapter } from '../engine/io/model-checkpoint.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { testDir } from '../util/test-dir.test-helper.js';
import { TroupeError } from '../util/errors.js';
import { modelInit, modelLogprobs } from './model-command.js';
import { startServe } from '../api/start-serve.js';

const root = testDir('troupe-hub-cli-');
const folder = join(root, 'tiny');
modelInit({ hidden: 16, layers: 1, heads: 2, intermediate: 16, vocab: 64, seed: 4, out: folder, context: 64 });
const hfHome = join(root, 'hf');
const commit = '1234abcd'.repeat(5);
const snapshot = writeCachedSnapshot(join(hfHome, 'hub'), 'Org/Tiny', commit, new Map(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f))])));
const ids = [1, 20, 21, 22, 5];
// A PEFT adapter with non-zero B (so it changes the numbers), cached as its own hub repo.
const adapterDir = join(root, 'lora');
{
  const { model } = loadModel(createReferenceKernels(), folder);
  const adapter = model.addAdapter('a', { r: 2, alpha: 4, targetModules: ['q_proj', 'v_proj'] }, 1);
  for (const t of adapter.parameters.values()) t.data.forEach((_, i) => (t.data[i] = Math.sin(i + t.data.length) * 0.5));
  saveModelAdapter(adapterDir, model, 'a', { baseModelNameOrPath: 'Org/Tiny' });
  model.dispose();
}
writeCachedSnapshot(join(hfHome, 'hub'), 'Org/Tiny-lora', commit, new Map(readdirSync(adapterDir).map((f) => [f, readFileSync(join(adapterDir, f))])));
const main = join(process.cwd(), 'dist', 'src', 'cli', 'main.js');

function troupe(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [main, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
}

test('troupe model logprobs Org/Name [--adapter Org/Lora] --ids reads both from the HF cache under HF_HOME, offline', () => {
  const run = troupe(['model', 'logprobs', 'Org/Tiny', '--ids', ids.join(','), '--json'], { HF_HOME: hfHome, HF_HUB_OFFLINE: '1' });
  assert.equal(run.status, 0, run.stderr);
  const expected = modelLogprobs(folder, { ids }).logprobs;
  const got = JSON.parse(run.stdout) as number[];
  assert.equal(got.length, expected.length);
  got.forEach((lp, i) => assert.ok(Math.abs(lp - expected[i]!) < 1e-5, `token ${i}: ${lp} vs ${expected[i]} (the CLI's kernels may round differently)`));
  const withAdapter = troupe(['model', 'logprobs', 'Org/Tiny', '--adapter', 'Org/Tiny-lora', '--ids', ids.join(','), '--json'], { HF_HOME: hfHome, HF_HUB_OFFLINE: '1' });
  assert.equal(withAdapter.status, 0, withAdapter.stderr);
  const adapted = modelLogprobs(folder, { ids, adapter: adapterDir }).logprobs;
  assert.ok(adapted.some((lp, i) => Math.abs(lp - expected[i]!) > 1e-3), 'the adapter changes the numbers');
  (JSON.parse(withAdapter.stdout) as number[]).forEach((lp, i) => assert.ok(Math.abs(lp - adapted[i]!) < 1e-5, `adapter token ${i}: ${lp} vs ${adapted[i]}`));
  const missing = troupe(['model', 'logprobs', 'Org/Other', '--ids', '1,2'], { HF_HOME: hfHome, HF_HUB_OFFLINE: '1' });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^troupe: checkpoint error: Org\/Other is not in the cache at .*models--Org--Other and HF_HUB_OFFLINE is set; .*\n$/);
});

test('a folder without tokenizer.json scores --ids (same numbers) and explains why --text cannot work', () => {
  const bare = join(root, 'bare');
  cpSync(folder, bare, { recursive: true });
  rmSync(join(bare, 'tokenizer.json'));
  rmSync(join(bare, 'tokenizer_config.json'));
  assert.deepEqual(modelLogprobs(bare, { ids }).logprobs, modelLogprobs(folder, { ids }).logprobs);
  assert.throws(() => modelLogprobs(bare, { text: 'S.#G' }), (e) => e instanceof TroupeError && /bare has no tokenizer\.json, so it cannot turn text into token ids; give token ids instead/.test(e.message));
  const run = troupe(['model', 'logprobs', bare, '--ids', ids.join(',')], { HF_HOME: hfHome });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /total -\d+\.\d+ over 4 tokens/);
});

test('troupe serve Org/Name serves the cached snapshot under the hub id', async () => {
  const saved = { HF_HOME: process.env.HF_HOME, HF_HUB_OFFLINE: process.env.HF_HUB_OFFLINE };
  Object.assign(process.env, { HF_HOME: hfHome, HF_HUB_OFFLINE: '1' });
  try {
    let printed = '';
    const server = await startServe({ model: 'Org/Tiny', host: '127.0.0.1', port: 0, windowMs: 0, seed: 0, print: (t) => (printed += t) });
    try {
      const models = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: Array<{ id: string; root: string }> };
      assert.deepEqual(models.data.map((m) => [m.id, m.root]), [['Org/Tiny', snapshot]]);
      assert.match(printed, /Org\/Tiny/);
    } finally {
      await server.close();
    }
  } finally {
    for (const [key, value] of Object.entries(saved)) if (value === undefined) delete process.env[key]; else process.env[key] = value;
  }
});
