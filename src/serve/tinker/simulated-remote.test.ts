// The simulated remote service of `troupe serve --tinker --simulate-...`: requests cost the
// latency, results wait for their tokens' service time, sampling runs side by side and one
// model's training requests queue on its lane. The waits are read off a standing clock, so the
// test does not depend on how busy the machine is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatedRemote, type SimulationClock } from './simulated-remote.js';

const sampleResult = (tokens: number) => ({ proto: 'sample', value: { sequences: [{ stop_reason: 'length', tokens: new Array(tokens).fill(1) }] } });
const trainResult = (tokens: number) => ({ proto: 'forward_backward', value: { loss_fn_output_type: 'x', loss_fn_outputs: [{ logprobs: { dtype: 'float32', shape: [tokens], data: new Float32Array(tokens) } }], metrics: {} } });

/** A clock that stands still at `now` and records every wait asked of it, in order. */
function standingClock(now = 0): SimulationClock & { readonly waits: number[] } {
  const waits: number[] = [];
  return { waits, now: () => now, sleep: async (ms) => void waits.push(ms) };
}

test('every request pays the latency', async () => {
  const clock = standingClock();
  const sim = new SimulatedRemote({ latencyMs: 40, usPerToken: 0 }, clock);
  await sim.roundTrip();
  assert.deepEqual(clock.waits, [40]);
});

test('samples are served side by side; they take prompt + generated tokens times the per-token time', async () => {
  const clock = standingClock();
  const sim = new SimulatedRemote({ latencyMs: 0, usPerToken: 1000 }, clock); // 1 ms per token
  sim.admit('a', { promptTokens: 30 });
  sim.admit('b', { promptTokens: 30 });
  await Promise.all([sim.hold('a', sampleResult(30)), sim.hold('b', sampleResult(30))]);
  assert.deepEqual(clock.waits, [60, 60], 'both end 60 ms after arriving: neither queues behind the other');
});

test('with a decoding time, a sample also costs it per token of its longest sequence; its samples decode side by side', async () => {
  const clock = standingClock();
  const sim = new SimulatedRemote({ latencyMs: 0, usPerToken: 1000, decodeMsPerToken: 5 }, clock);
  const twoSamples = { proto: 'sample', value: { sequences: [{ stop_reason: 'length', tokens: [1, 1, 1] }, { stop_reason: 'stop', tokens: [1] }] } };
  sim.admit('s', { promptTokens: 10 });
  sim.admit('fb', { lane: 'm' });
  await sim.hold('s', twoSamples);
  await sim.hold('fb', trainResult(40));
  assert.deepEqual(clock.waits, [10 + 4 + 3 * 5, 40], 'prompt + 4 generated tokens at 1 ms, then 3 decoding steps at 5 ms; training pays no decoding');
});

test('training requests of one model queue on its lane; another model has its own', async () => {
  const clock = standingClock();
  const sim = new SimulatedRemote({ latencyMs: 0, usPerToken: 1000 }, clock);
  sim.admit('fb1', { lane: 'm1' });
  sim.admit('fb2', { lane: 'm1' });
  sim.admit('other', { lane: 'm2' });
  sim.admit('forward', { lane: 'm2', forwardOnly: true });
  await sim.hold('fb1', trainResult(40));
  await sim.hold('fb2', trainResult(40));
  await sim.hold('other', trainResult(40));
  await sim.hold('forward', trainResult(60));
  assert.deepEqual(clock.waits, [40, 80, 40, 60], 'the second of m1 waits for the first; m2 is free; a forward without backward costs a third per token');
  await sim.hold('unknown', trainResult(40)); // not admitted (e.g. before the simulation started): no wait
  assert.equal(clock.waits.length, 4);
});

test('the real clock waits at least the latency', async () => {
  const sim = new SimulatedRemote({ latencyMs: 20, usPerToken: 0 });
  const start = performance.now();
  await sim.roundTrip();
  assert.ok(performance.now() - start >= 15, 'a timer, not an immediate answer');
});
