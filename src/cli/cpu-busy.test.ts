import assert from 'node:assert/strict';
import { test } from 'node:test';
import { busyShare, measureOtherCpuBusy, parseProcStat } from './cpu-busy.js';

test('parseProcStat sums the aggregate cpu line and counts idle + iowait as idle', () => {
  const text = 'cpu  100 5 20 800 50 1 2 3 0 0\ncpu0 50 2 10 400 25 0 1 1 0 0\nintr 1\n';
  assert.deepEqual(parseProcStat(text), { total: 981, idle: 850 });
  assert.equal(parseProcStat('intr 1\n'), undefined);
  assert.equal(parseProcStat('cpu  1 2 x 4 5\n'), undefined);
});

test('busyShare is the non-idle share between two readings', () => {
  assert.equal(busyShare({ total: 1000, idle: 900 }, { total: 1200, idle: 1050 }), 0.25);
  assert.equal(busyShare({ total: 1000, idle: 900 }, { total: 1000, idle: 900 }), undefined);
});

test('measureOtherCpuBusy gives a share in [0, 1] on Linux', async () => {
  const share = await measureOtherCpuBusy(50);
  if (process.platform === 'linux') assert.ok(share !== undefined && share >= 0 && share <= 1, String(share));
  else assert.equal(share, undefined);
});
