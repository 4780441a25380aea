// model.path as a hub id (from the HF cache, offline) trains a LoRA run whose adapters name
// their base the way peft and vLLM expect: the hub id itself; a folder base is named by its
// path relative to the adapter. `troupe serve` of such a run finds the base again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeCachedSnapshot } from '../engine/hub/fake-hub.test-helper.js';
import { saveCheckpoint } from '../engine/io/checkpoint.js';
import { randomLlamaTensors } from '../engine/io/random-tensors.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import { llamaConfig } from '../engine/model/llama-config.js';
import { CharTokenizer } from '../engine/tokenizer/char-tokenizer.js';
import { loadStopTokenIds } from '../engine/tokenizer/stop-tokens.js';
import { loadServedModels } from '../serve/load-served-models.js';
import { testDir } from '../util/test-dir.test-helper.js';
import { listCheckpoints } from './checkpoint-store.js';
import { runTraining } from './run-training.js';

const root = testDir('troupe-hub-run-');
const folder = join(root, 'base-model');
const config = llamaConfig({ hidden: 16, layers: 1, heads: 2, intermediate: 32, vocab: 64, context: 80 });
// A list of stop ids, as Qwen3 and Llama 3 Instruct ship: a fine-tuned copy must keep it.
const generationConfig = { eos_token_id: [2, 7], do_sample: true, temperature: 0.6 };
saveCheckpoint(folder, { config, tensors: randomLlamaTensors(config, 5), tokenizer: CharTokenizer.standard(), generationConfig });
const hfHome = join(root, 'hf');
const snapshot = writeCachedSnapshot(join(hfHome, 'hub'), 'Org/Tiny', 'f'.repeat(40), new Map(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f))])));
const quiet = { write: () => true };

function runConfig(modelPath: string, name: string, map = 'lora'): string {
  const path = join(root, `${name}.yaml`);
  writeFileSync(
    path,
    `name: ${name}
tasks: { name: plan-path, size: 4, min_distance: 1 }
team: { max_turns: 1 }
rollout: { k: 2, tasks: 1, max_tokens: 4 }
policy: { kind: embedded, map: ${map} }
model: { path: ${JSON.stringify(modelPath)}${map === 'lora' ? ', lora: { r: 2, alpha: 4 }' : ''} }
train: { steps: 1, eval_every: 0, eval_tasks: 1, checkpoint_every: 1, samples_every: 0 }
`,
  );
  return path;
}

function adapterBases(runDir: string): string[] {
  const step = listCheckpoints(runDir).at(-1)!.dir;
  return readdirSync(join(step, 'adapters')).map((id) => (JSON.parse(readFileSync(join(step, 'adapters', id, 'adapter_config.json'), 'utf8')) as { base_model_name_or_path: string }).base_model_name_or_path);
}

test('a LoRA run on a hub id from the cache names its base by the id; serve finds it again', async () => {
  const saved = { HF_HOME: process.env.HF_HOME, HF_HUB_OFFLINE: process.env.HF_HUB_OFFLINE };
  Object.assign(process.env, { HF_HOME: hfHome, HF_HUB_OFFLINE: '1' });
  try {
    const runDir = join(root, 'runs', 'hub');
    let log = '';
    await runTraining({ config: runConfig('Org/Tiny', 'hub'), runDir, stream: { write: (t: string) => ((log += t), true) } });
    assert.match(log, new RegExp(`loaded the base model from Org/Tiny \\(${snapshot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
    const bases = adapterBases(runDir);
    assert.ok(bases.length > 0 && bases.every((b) => b === 'Org/Tiny'), `adapters name ${bases}`);
    const served = loadServedModels(createReferenceKernels(), runDir);
    assert.equal(served.find((m) => m.name === 'hub')?.root, snapshot);
  } finally {
    for (const [key, value] of Object.entries(saved)) if (value === undefined) delete process.env[key]; else process.env[key] = value;
  }
});

test('a LoRA run on a folder names its base by the path from the adapter to that folder', async () => {
  const runDir = join(root, 'runs', 'folder');
  await runTraining({ config: runConfig(folder, 'folder'), runDir, stream: quiet });
  const step = listCheckpoints(runDir).at(-1)!.dir;
  const ids = readdirSync(join(step, 'adapters'));
  adapterBases(runDir).forEach((base, i) => assert.equal(resolve(join(step, 'adapters', ids[i]!), base), resolve(folder)));
});

test('a full fine-tune keeps the generation_config.json of the hub model it started from', async () => {
  const saved = { HF_HOME: process.env.HF_HOME, HF_HUB_OFFLINE: process.env.HF_HUB_OFFLINE };
  Object.assign(process.env, { HF_HOME: hfHome, HF_HUB_OFFLINE: '1' });
  try {
    const runDir = join(root, 'runs', 'full');
    await runTraining({ config: runConfig('Org/Tiny', 'full', 'shared'), runDir, stream: quiet });
    const step = listCheckpoints(runDir).at(-1)!.dir;
    const policies = readdirSync(join(step, 'policies'));
    assert.ok(policies.length > 0);
    for (const id of policies) {
      const folder = join(step, 'policies', id);
      assert.deepEqual(JSON.parse(readFileSync(join(folder, 'generation_config.json'), 'utf8')), generationConfig);
      const stops = loadStopTokenIds(folder, CharTokenizer.standard());
      assert.ok(stops.includes(2) && stops.includes(7), `stop ids ${stops}`);
    }
  } finally {
    for (const [key, value] of Object.entries(saved)) if (value === undefined) delete process.env[key]; else process.env[key] = value;
  }
});
