// A full disk under `troupe serve --tinker --state-dir`: save_weights fails with one clear
// error that names the full disk but no server path, leaves no temporary file, and the earlier
// checkpoints stay listed and loadable. The state folder is on a small tmpfs
// (util/small-disk.test-helper.ts; skipped with a message where the machine cannot make one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TinkerClient } from '../../tinker/tinker-client.js';
import { API_PREFIX, DEFAULT_ADAM, type Datum } from '../../tinker/types.js';
import { privateMountArgs, smallDiskUnavailable } from '../../util/small-disk.test-helper.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { cliPath } from '../../train/tiny-run.test-helper.js';
import { makeTinyModelDir } from '../tiny-model.test-helper.js';

const TEXT = [3, 17, 42, 8, 25];
const datum: Datum = { model_input: { chunks: [{ tokens: TEXT.slice(0, -1) }] }, loss_fn_inputs: { target_tokens: { dtype: 'int64', shape: [4], data: TEXT.slice(1) }, weights: { dtype: 'float32', shape: [4], data: [1, 1, 1, 1] } } };

test('a full disk during save_weights: one error naming it without a server path, no temporary file, earlier saves intact', { skip: smallDiskUnavailable() }, async () => {
  const folder = makeTinyModelDir();
  const dir = testDir('troupe-tinker-full-');
  const mnt = join(dir, 'mnt');
  const pidFile = join(dir, 'server.pid');
  // 64 KiB: room for a rank-4 checkpoint (10 KB), not for a rank-64 one (150 KB). After the
  // server stops, the script lists the state folder, which only the namespace can see.
  const script = `mkdir -p ${mnt} && mount -t tmpfs -o size=64k tmpfs ${mnt} && { "${process.execPath}" ${cliPath} serve --tinker --model tiny=${folder.dir} --no-hf-cache --port 0 --state-dir ${mnt}/state & echo $! > ${pidFile}; wait $!; echo LISTING; ls -a ${mnt}/state; }`;
  const child = spawn('unshare', [...privateMountArgs, 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let kept = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const m = /troupe serve --tinker: (http:\/\/\S+) /.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`the server did not start:\n${err}`)));
  });
  try {
    const client = await TinkerClient.connect({ baseUrl: url, apiKey: 'tml-test', maxRetries: 0, backoffMs: 10 });
    const small = await client.createLoraModel('tiny', { rank: 4, seed: 3 });
    await small.forwardBackward([datum], 'cross_entropy');
    await small.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.05 });
    kept = await small.saveWeights('kept');
    const big = await client.createLoraModel('tiny', { rank: 64 });
    const error = await big.saveWeights('too-big').then(
      () => assert.fail('a 150 KB checkpoint fit on a 64 KiB disk'),
      (e: Error) => e.message,
    );
    assert.match(error, /tinker:\/\/\S+\/weights\/too-big was not saved: the disk of the server's state folder is full \(ENOSPC\); the earlier checkpoints are intact\. delete_checkpoint old ones or free space on the server, then save again$/);
    assert.ok(!error.includes(mnt) && !error.includes('/tmp/'), `no server path in: ${error}`);
    const listed = (await (await fetch(`${url}${API_PREFIX}/checkpoints`)).json()) as { checkpoints: Array<{ tinker_path: string }> };
    assert.deepEqual(listed.checkpoints.map((c) => c.tinker_path), [kept]);
    const fresh = await client.createLoraModel('tiny', { rank: 4, seed: 11 });
    await fresh.loadWeights(kept, true);
    const logprobs = async (m: typeof small) => Array.from((await m.forwardBackward([datum], 'cross_entropy', { forwardOnly: true })).loss_fn_outputs[0]!.logprobs!.data);
    assert.deepEqual(await logprobs(fresh), await logprobs(small), 'the earlier save loads with its weights');
    client.close();
  } finally {
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM');
    await exited;
    folder.remove();
  }
  const listing = out.slice(out.indexOf('LISTING\n') + 'LISTING\n'.length).split('\n').filter((f) => f && f !== '.' && f !== '..');
  assert.deepEqual(listing, [`${encodeURIComponent(kept)}.safetensors`], 'only the finished checkpoint, no temporary file');
});
