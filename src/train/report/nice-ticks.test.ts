import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTick, niceTicks } from './nice-ticks.js';

function isRound(step: number): boolean {
  const norm = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
  return [1, 2, 5, 10].some((n) => Math.abs(norm - n) < 1e-9);
}

test('extended ticks are round, evenly spaced and cover the data', () => {
  for (const [lo, hi] of [[0, 1], [0.013, 0.87], [-3.2, 7.9], [1200, 53000], [0, 0.00042], [0.3, 2.8], [-0.02, 0.095]] as const) {
    const t = niceTicks(lo, hi);
    assert.ok(isRound(t.step), `step ${t.step} for ${lo}..${hi}`);
    assert.ok(t.min <= lo && t.max >= hi, `${t.min}..${t.max} covers ${lo}..${hi}`);
    assert.ok(t.values.length >= 3 && t.values.length <= 11, `${t.values.length} ticks for ${lo}..${hi}`);
    t.values.forEach((v, i) => assert.ok(Math.abs(v - (t.values[0]! + i * t.step)) < t.step * 1e-9));
    assert.equal(t.values[0], t.min);
    assert.equal(t.values.at(-1), t.max);
  }
});

test('x-style ticks keep the range and only tick inside it, at whole numbers for steps', () => {
  const t = niceTicks(-1, 49, { integer: true, extend: false, target: 6 });
  assert.equal(t.min, -1);
  assert.equal(t.max, 49);
  assert.deepEqual(t.values, [0, 10, 20, 30, 40]);
  assert.deepEqual(niceTicks(0, 2, { integer: true, extend: false }).values, [0, 1, 2]);
});

test('a single value gets room around it instead of a zero-height axis', () => {
  const t = niceTicks(5, 5);
  assert.ok(t.min < 5 && t.max > 5);
  const s = niceTicks(3, 3, { integer: true, extend: false });
  assert.ok(s.values.includes(3));
  assert.ok(s.min < 3 && s.max > 3);
});

test('tick labels carry just enough decimals', () => {
  assert.equal(formatTick(0.4, 0.2), '0.4');
  assert.equal(formatTick(0.05, 0.05), '0.05');
  assert.equal(formatTick(20, 10), '20');
  assert.equal(formatTick(20000, 10000), '20k');
  assert.equal(formatTick(2500, 500), '2500');
  assert.equal(formatTick(1.5e6, 5e5), '1.5M');
  assert.equal(formatTick(0.0003, 0.0001), '3e-4');
  assert.equal(formatTick(0, 0.0001), '0');
  assert.equal(formatTick(0.6, 0.2, true), '60%');
  assert.equal(formatTick(0.025, 0.005, true), '2.5%');
});
