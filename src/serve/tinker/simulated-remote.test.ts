// The simulated remote service of `troupe serve --tinker --simulate-...`: requests cost the
// latency, results wait for their tokens' service time, sampling runs side by side and one
// model's training requests queue on its lane.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatedRemote } from './simulated-remote.js';

const sampleResult = (tokens: number) => ({ proto: 'sample', value: { sequences: [{ stop_reason: 'length', tokens: new Array(tokens).fill(1) }] } });
const trainResult = (tokens: number) => ({ proto: 'forward_backward', value: { loss_fn_output_type: 'x', loss_fn_outputs: [{ logprobs: { dtype: 'float32', shape: [tokens], data: new Float32Array(tokens) } }], metrics: {} } });

test('every request pays the latency', async () => {
  const sim = new SimulatedRemote({ latencyMs: 40, usPerToken: 0 });
  const start = performance.now();
  await sim.roundTrip();
  assert.ok(performance.now() - start >= 39);
});

test('samples are served side by side; they take prompt + generated tokens times the per-token time', async () => {
  const sim = new SimulatedRemote({ latencyMs: 0, usPerToken: 1000 }); // 1 ms per token
  const start = performance.now();
  sim.admit('a', { promptTokens: 30 });
  sim.admit('b', { promptTokens: 30 });
  await Promise.all([sim.hold('a', sampleResult(30)), sim.hold('b', sampleResult(30))]);
  const took = performance.now() - start;
  assert.ok(took >= 59 && took < 110, `two 60-token samples in parallel took ${took} ms`);
});

test('training requests of one model queue on its lane; another model has its own', async () => {
  const sim = new SimulatedRemote({ latencyMs: 0, usPerToken: 1000 });
  const start = performance.now();
  sim.admit('fb1', { lane: 'm1' });
  sim.admit('fb2', { lane: 'm1' });
  sim.admit('other', { lane: 'm2' });
  const ends: Record<string, number> = {};
  await Promise.all([
    sim.hold('fb1', trainResult(40)).then(() => (ends.fb1 = performance.now() - start)),
    sim.hold('fb2', trainResult(40)).then(() => (ends.fb2 = performance.now() - start)),
    sim.hold('other', trainResult(40)).then(() => (ends.other = performance.now() - start)),
  ]);
  assert.ok(ends.fb1! >= 39 && ends.fb1! < 75, `first: ${ends.fb1}`);
  assert.ok(ends.fb2! >= 79, `the second waits for the first: ${ends.fb2}`);
  assert.ok(ends.other! < 75, `the other model's lane is free: ${ends.other}`);
  await sim.hold('unknown', trainResult(40)); // not admitted (e.g. before the simulation started): no wait
});
