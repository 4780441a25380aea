// evaluate() and rollout() stop on an AbortSignal between batches of `rollout.tasks` tasks: the
// batch in flight finishes, no other is played, and the promise resolves with what was played.
// The task below aborts from a later turn of the event loop (setImmediate) when its first
// episode ends, so a loop that ignores the signal, or that starts the next batch without
// letting the event loop run first, plays more than one batch and fails these tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDir } from '../util/test-dir.test-helper.js';

const { defineTask, evaluate, rollout, Rng } = await import('troupe');

class GuessEnv {
  guess = -1;
  constructor(readonly taskId: string, readonly secret: number) {}
  get done() {
    return this.guess >= 0;
  }
  get success() {
    return this.guess === this.secret;
  }
  clone(): this {
    return Object.assign(new GuessEnv(this.taskId, this.secret), { guess: this.guess }) as this;
  }
}

/** A one-turn guessing task; `onEpisode` runs each time a guess is played. */
function guessTask(onEpisode: () => void) {
  return defineTask({
    name: 'abort-guess',
    maxTurns: 1,
    source: (_options, seed) => ({ make: (i, split) => new GuessEnv(`abort-guess/${split}/${i}`, Rng.derive(seed, split, i).int(4)) }),
    team: () => ({
      roles: [
        {
          name: 'GUESS',
          prompt: (env: GuessEnv) => `S${env.secret}\nA:`,
          parse: (t: string) => (/^\d/.test(t) ? { ok: true as const, action: Number(t[0]) } : { ok: false as const, reason: 'no digit' }),
          step: (env: GuessEnv, a: { ok: boolean; action?: number }) => {
            onEpisode();
            env.guess = a.ok ? a.action! : 9;
            return { local: 0 };
          },
        },
      ],
      globalReward: (env: GuessEnv) => (env.success ? 1 : 0),
    }),
    scripted: ({ prompt, skill, rng }) => String(rng.next() < skill ? Number(prompt[1]) : rng.int(4)),
  });
}

const config = { policy: { kind: 'scripted' as const, skill: 0.5 }, rollout: { k: 2, tasks: 4 }, train: { eval_tasks: 12 } };

/** A task that aborts `controller` (from the event loop, not synchronously) when its first episode ends. */
function abortingTask(controller: AbortController) {
  let scheduled = false;
  return guessTask(() => {
    if (!scheduled) setImmediate(() => controller.abort());
    scheduled = true;
  });
}

test('evaluate: an abort during the first batch scores that batch only, and resolves with interrupted', async () => {
  const controller = new AbortController();
  const stopped = await evaluate({ config, tasks: [abortingTask(controller)], signal: controller.signal });
  assert.equal(controller.signal.aborted, true);
  assert.equal(stopped.interrupted, true);
  assert.equal(stopped.n, 4, 'one batch of rollout.tasks = 4 held-out tasks, not the 12 asked for');
  const whole = await evaluate({ config, tasks: [guessTask(() => undefined)], count: 4 });
  assert.deepEqual({ ...stopped, interrupted: false }, whole, 'the batch played scores as the same tasks without a signal');
});

test('evaluate: a signal that is never aborted plays every batch and scores as without one', async () => {
  const withSignal = await evaluate({ config, tasks: [guessTask(() => undefined)], signal: new AbortController().signal });
  const without = await evaluate({ config, tasks: [guessTask(() => undefined)] });
  assert.equal(withSignal.n, 12);
  assert.equal(withSignal.interrupted, false);
  assert.deepEqual(withSignal, without);
});

test('evaluate: a signal aborted before the call plays nothing', async () => {
  let episodes = 0;
  const score = await evaluate({ config, tasks: [guessTask(() => episodes++)], signal: AbortSignal.abort() });
  assert.deepEqual([score.n, score.interrupted, episodes], [0, true, 0]);
});

test('rollout: an abort keeps the samples of the batch played, as a run without a signal plays them, and writes only those', async () => {
  const controller = new AbortController();
  const out = join(testDir('troupe-abort-rollout-'), 'samples.jsonl');
  const stopped = await rollout({ config, tasks: [abortingTask(controller)], count: 12, out, signal: controller.signal });
  assert.equal(stopped.interrupted, true);
  assert.equal(stopped.summary.episodes, 4, 'one batch of rollout.tasks = 4 tasks, not the 12 asked for');
  const whole = await rollout({ config, tasks: [guessTask(() => undefined)], count: 12 });
  assert.equal(whole.interrupted, false);
  const played = new Set(stopped.samples.map((s) => s.task_id));
  assert.deepEqual([...played].sort(), [0, 1, 2, 3].map((i) => `abort-guess/train/${i}`));
  const key = (s: { task_id: string; branch: number }) => `${s.task_id}#${s.branch}`;
  const sorted = <T extends { task_id: string; branch: number }>(xs: readonly T[]) => [...xs].sort((a, b) => key(a).localeCompare(key(b)));
  assert.deepEqual(sorted(stopped.samples), sorted(whole.samples.filter((s) => played.has(s.task_id))));
  assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, stopped.samples.length);
});
