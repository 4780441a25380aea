// A real crash in the middle of a save_weights write: `troupe serve --tinker --state-dir` is
// SIGKILLed while it writes a checkpoint file (held there by a test-only failpoint,
// util/test-failpoint.ts: a tiny adapter's file takes a millisecond). A server restarted on the
// same state folder must remove the temporary file and still load what was saved before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { getKernels } from '../../engine/kernels/get-kernels.js';
import { TinkerClient, type TinkerTrainingModel } from '../../tinker/tinker-client.js';
import { DEFAULT_ADAM, type Datum } from '../../tinker/types.js';
import { spawnAtFailpoint } from '../../util/troupe-child.test-helper.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { makeTinyModelDir } from '../tiny-model.test-helper.js';
import { startTinkerServer } from './tinker-server.js';

const TEXT = [3, 17, 42, 8, 25];
const datum: Datum = { model_input: { chunks: [{ tokens: TEXT.slice(0, -1) }] }, loss_fn_inputs: { target_tokens: { dtype: 'int64', shape: [4], data: TEXT.slice(1) }, weights: { dtype: 'float32', shape: [4], data: [1, 1, 1, 1] } } };
const logprobs = async (model: TinkerTrainingModel) => Array.from((await model.forwardBackward([datum], 'cross_entropy', { forwardOnly: true })).loss_fn_outputs[0]!.logprobs!.data);
const connect = (baseUrl: string) => TinkerClient.connect({ baseUrl, apiKey: 'tml-test', maxRetries: 0, backoffMs: 10 });

test('SIGKILL during a save_weights write: the restarted server removes the temporary file and loads the earlier save', async () => {
  const folder = makeTinyModelDir();
  const stateDir = join(testDir('troupe-kill-save-'), 'state');
  try {
    const child = spawnAtFailpoint(['serve', '--tinker', '--model', `tiny=${folder.dir}`, '--no-hf-cache', '--port', '0', '--state-dir', stateDir], 'atomic-write:doomed');
    const url = (await child.stdout(/troupe serve --tinker: (http:\/\/\S+) /))[1]!;
    const client = await connect(url);
    const model = await client.createLoraModel('tiny', { rank: 4, seed: 3 });
    await model.forwardBackward([datum], 'cross_entropy');
    await model.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.05 });
    const kept = await model.saveWeights('kept');
    const trained = await logprobs(model);
    const interrupted = model.saveWeights('doomed').then(
      () => assert.fail('the save answered although its server was killed'),
      (error: unknown) => error,
    );
    const writing = await child.reached;
    const { signal } = await child.kill();
    await interrupted;
    client.close();
    assert.equal(signal, 'SIGKILL');
    // The kill landed inside the save: its temporary file is there and the checkpoint is not.
    assert.equal(dirname(writing), stateDir);
    assert.match(basename(writing), /^\..*doomed\.safetensors\.tmp-\d+-\d+$/);
    assert.ok(existsSync(writing));
    assert.deepEqual(readdirSync(stateDir).filter((f) => !f.startsWith('.')), [`${encodeURIComponent(kept)}.safetensors`]);

    const restarted = await startTinkerServer({ kernels: await getKernels(), models: [{ name: 'tiny', dir: folder.dir }], port: 0, stateDir, log: () => {} });
    try {
      assert.deepEqual(readdirSync(stateDir), [`${encodeURIComponent(kept)}.safetensors`], 'the temporary file is gone');
      const again = await connect(restarted.url);
      const fresh = await again.createLoraModel('tiny', { rank: 4, seed: 11 });
      await fresh.loadWeights(kept, true);
      assert.deepEqual(await logprobs(fresh), trained, 'the earlier save loads with the weights it had');
      const another = await again.createLoraModel('tiny', { rank: 4, seed: 11 });
      await assert.rejects(another.loadWeights(kept.replace('kept', 'doomed'), false), /no saved weights at .*doomed/);
      again.close();
    } finally {
      await restarted.close();
    }
  } finally {
    folder.remove();
  }
});
