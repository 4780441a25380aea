// train() inside a host program: it never owns the process. An AbortSignal stops the run after
// its step with a checkpoint (the process goes on), and an HTTP server of the same process is
// answered between every two steps (the loop yields to the event loop).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { tinyRun } from '../train/tiny-run.test-helper.js';
import { train } from './train.js';

const { dir, config } = tinyRun({ prefix: 'troupe-api-host-', map: 'shared', train: '{ steps: 12, eval_every: 0, eval_tasks: 2, checkpoint_every: 0, samples_every: 0 }' });

test('aborting train() finishes the step, saves a checkpoint and resolves with interrupted: true', async () => {
  const controller = new AbortController();
  const steps: number[] = [];
  const runDir = join(dir, 'abort');
  const result = await train({
    config,
    runDir,
    progress: false,
    signal: controller.signal,
    onStep: (record) => {
      steps.push(record.step);
      if (record.step === 2) controller.abort();
    },
  });
  assert.equal(result.interrupted, true);
  assert.equal(result.lastStep, 2);
  assert.deepEqual(steps, [0, 1, 2], 'no step after the abort');
  assert.deepEqual(readdirSync(join(runDir, 'checkpoints')), ['step-000002']);
  const resumed = await train({ config, runDir, progress: false, resume: true });
  assert.equal(resumed.interrupted, false);
  assert.equal(resumed.lastStep, 11);
});

test('an HTTP server in the same process answers within a step while train() runs', async () => {
  let stepsDone = 0;
  const stepEnds: number[] = [];
  const server = createServer((_req, res) => res.end(`<${stepsDone}>`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The client runs in its own process, so only the server waits on this one's event loop. It
  // asks again as soon as it has an answer (one kept-alive connection) and prints, per request,
  // when its bytes had been handed to the kernel (a time at or after they reached the server's
  // socket) and the answer: how many steps were done when the server answered.
  const script = `
    const socket = require('node:net').connect(${(server.address() as AddressInfo).port}, '127.0.0.1');
    let sent = 0, seen = '';
    const ask = () => socket.write('GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n', () => { sent = Date.now(); });
    socket.on('connect', ask);
    socket.on('data', (chunk) => {
      seen += chunk;
      for (let m; (m = /<(\\d+)>/.exec(seen)); seen = seen.slice(m.index + m[0].length)) {
        console.log(sent + ' ' + m[1]);
        ask();
      }
    });
    socket.on('error', () => socket.destroy());`;
  const client = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  const answers: Array<{ sent: number; stepsDone: number }> = [];
  let buffered = '';
  client.stdout.setEncoding('utf8');
  client.stdout.on('data', (text: string) => {
    buffered += text;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const [sent, done] = line.split(' ').map(Number);
      answers.push({ sent: sent!, stepsDone: done! });
    }
  });
  // Start training only once the client is answered: on a loaded machine a new node process
  // can take longer to start than the whole 12-step run.
  await new Promise<void>((resolve) => {
    const waitForFirst = () => (answers.length > 0 ? resolve() : setTimeout(waitForFirst, 5));
    waitForFirst();
  });
  const answeredBefore = answers.length;
  // Steps of this tiny run take milliseconds, and on a loaded machine the client process may
  // not run at all for a few of them: train until six requests were answered (or 400 steps,
  // which a loop that never yields fails), then abort.
  const enough = new AbortController();
  try {
    await train({ config, runDir: join(dir, 'served'), progress: false, set: ['train.steps=400'], signal: enough.signal, onStep: () => {
      stepsDone++;
      stepEnds.push(Date.now());
      if (answers.length - answeredBefore >= 6) enough.abort();
    } });
  } finally {
    client.kill();
    server.close();
  }
  const during = answers.slice(answeredBefore).filter((a) => a.stepsDone < stepEnds.length);
  assert.ok(during.length >= 4, `only ${during.length} requests were answered during the ${stepEnds.length} steps`);
  // A request is answered at the first pause between steps after it arrived: one whose bytes
  // were at the server during step j comes back once step j is done.
  for (const { sent, stepsDone: answeredAfter } of during) {
    const doneWhenSent = stepEnds.filter((t) => t <= sent).length;
    assert.ok(answeredAfter - doneWhenSent <= 1, `a request at the server after ${doneWhenSent} steps was answered after ${answeredAfter}`);
  }
});
