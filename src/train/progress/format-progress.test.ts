import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration } from './format-duration.js';
import { estimateEta } from './estimate-eta.js';
import { formatProgressLine, progressBar, type ProgressState } from './format-progress-line.js';
import { formatSummary } from './format-summary.js';

test('formatDuration picks the two largest units', () => {
  assert.equal(formatDuration(0), '0s');
  assert.equal(formatDuration(59.4), '59s');
  assert.equal(formatDuration(190), '3m10s');
  assert.equal(formatDuration(3600 + 5 * 60 + 59), '1h05m');
  assert.equal(formatDuration(2 * 86400 + 3 * 3600), '2d03h');
  assert.equal(formatDuration(Number.NaN), '?');
  assert.equal(formatDuration(-1), '?');
});

test('progressBar fills in proportion and clamps', () => {
  assert.equal(progressBar(0.24, 10), '[##........]');
  assert.equal(progressBar(0.5, 4), '[##..]');
  assert.equal(progressBar(1.7, 5), '[#####]');
  assert.equal(progressBar(-1, 3), '[...]');
});

test('estimateEta averages only the latest window of step times', () => {
  assert.equal(estimateEta({ stepSeconds: [], remaining: 5 }), undefined);
  assert.equal(estimateEta({ stepSeconds: [100, 2, 4], remaining: 10, window: 2 }), 30);
  assert.equal(estimateEta({ stepSeconds: [1, 2, 3], remaining: 2 }), 4);
  assert.equal(estimateEta({ stepSeconds: [9], remaining: 0 }), 0);
});

const full: ProgressState = {
  done: 12,
  total: 50,
  etaSeconds: 190,
  success: 0.62,
  successOf: 'best-branch',
  evalSuccess: 0.58,
  evalStep: 9,
  rewards: { tool: 0.41, plan: 0.72 },
  samplesPerS: 2.1,
};

test('the full line reads like the documented example', () => {
  assert.equal(
    formatProgressLine(full),
    'step 11 (12/50) [##........] 24% ETA 3m10s held-out 58% (step 9) tree success 62% reward tool 0.41 plan 0.72 2.1 samples/s',
  );
});

test('each success number is named for whose play it measures', () => {
  const line = (state: Partial<ProgressState>) => formatProgressLine({ done: 3, total: 8, ...state });
  assert.match(line({ success: 1, successOf: 'best-branch' }), / tree success 100%$/, 'the best-branch search is not the policy');
  assert.match(line({ success: 0.25, successOf: 'sampled' }), / policy success 25%$/);
  assert.match(line({ success: 0.25 }), / train success 25%$/, 'an old metrics file without success_of');
  assert.match(line({ evalSuccess: 0.24, evalStep: -1 }), / held-out 24% \(base\)$/, 'the eval before any RL update');
  assert.match(line({ evalSuccess: 0.5, evalStep: 49 }), / held-out 50% \(step 49\)$/, 'named like checkpoints/step-000049: after step 49');
});

test('missing numbers are left out, not shown as 0 or NaN', () => {
  const line = formatProgressLine({ done: 0, total: 8, success: null, rewards: { tool: null }, samplesPerS: Number.NaN });
  assert.equal(line, 'step (0/8) [..........] 0% ETA ?');
});

test('a narrow terminal drops throughput, then rewards, then the bar, then the training success, then cuts', () => {
  const all = formatProgressLine(full);
  const noRate = formatProgressLine(full, all.length - 1);
  assert.ok(!noRate.includes('samples/s') && noRate.includes('reward tool'));
  const noReward = formatProgressLine(full, noRate.length - 1);
  assert.ok(!noReward.includes('reward') && noReward.includes('tree success 62%'));
  const noBar = formatProgressLine(full, noReward.length - 1);
  assert.equal(noBar, 'step 11 (12/50) 24% ETA 3m10s held-out 58% (step 9) tree success 62%');
  assert.equal(formatProgressLine(full, noBar.length - 1), 'step 11 (12/50) 24% ETA 3m10s held-out 58% (step 9)', 'held-out, the policy\'s own number, stays longest');
  const cut = formatProgressLine(full, 20);
  assert.equal(cut.length, 20);
  assert.ok(cut.endsWith('...'));
  for (let width = 10; width < 120; width += 7) assert.ok(formatProgressLine(full, width).length <= width);
});

test('the summary gives the interval and says when a run was stopped', () => {
  assert.equal(
    formatSummary({ done: 50, total: 50, elapsedSeconds: 723, success: 0.85, successOf: 'best-branch', eval: { success: 0.82, ciLow: 0.76, ciHigh: 0.87, n: 200 }, samplesPerS: 2.3 }),
    'done 50/50 steps in 12m03s: held-out 82% (95% CI 76-87%, n=200), tree success 85% on the last step, 2.3 samples/s',
  );
  assert.equal(
    formatSummary({ label: 'warm-start', done: 7, total: 40, elapsedSeconds: 5, stopped: 'stopped by Ctrl-C' }),
    'stopped at 7/40 warm-start steps in 5s (stopped by Ctrl-C)',
  );
});
