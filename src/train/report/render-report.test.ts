import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderReport } from './render-report.js';
import { checkMarkup } from './check-markup.test-helper.js';
import { syntheticRecords } from '../metrics/synthetic-records.test-helper.js';
import type { EvalRecord } from '../metrics/types.js';

const records = syntheticRecords({ steps: 15, warmStartSteps: 5, evalEvery: 5 });
const config = { name: 'plan-path', seed: 3, rollout: { mode: 'tree', k: 4 } };
const html = renderReport({ title: 'plan-path', config, records });

test('the page is well-formed and self-contained: no scripts, no outside resources', () => {
  assert.deepEqual(checkMarkup(html), []);
  assert.ok(html.startsWith('<!doctype html>'));
  for (const banned of [/<script/i, /\ssrc=/i, /href="(?!#)/i, /url\(/i, /@import/i, /<link/i]) assert.ok(!banned.test(html), String(banned));
  assert.ok((html.match(/<svg /g) ?? []).length >= 12);
});

test('the header gives the final held-out success with its interval, the base policy and the step count', () => {
  const evals = records.filter((r): r is EvalRecord => r.kind === 'eval');
  const last = evals.at(-1)!;
  const base = evals[0]!;
  const pct = (x: number | null) => `${(x! * 100).toFixed(1)}%`;
  const header = html.slice(0, html.indexOf('</header>'));
  assert.ok(header.includes(pct(last.success_rate)));
  assert.ok(header.includes(`95% CI ${pct(last.ci_low)} to ${pct(last.ci_high)}, n=${last.n}, after RL step ${last.step}`));
  assert.ok(header.includes(pct(base.success_rate)) && header.includes('before RL'));
  assert.match(header, /RL steps<\/div><div class="v">15</);
  assert.match(header, /Tree success<\/div><div class="v">[\d.]+%<\/div><div class="d">on RL step 14&#39;s rollouts; the best of K branches at every move: the search, not the policy alone</);
  assert.doesNotMatch(header, /Training success/, 'the number is named for whose play it measures');
});

test('the resolved config is shown as YAML in a details element', () => {
  const details = html.slice(html.indexOf('<details'));
  assert.match(details, /<summary>Resolved config<\/summary>/);
  assert.ok(details.includes('rollout:\n  mode: tree\n  k: 4'));
});

test('all text is escaped: title, notes, config, role names', () => {
  const evil = '<img src=x onerror=alert(1)>';
  const hostile = renderReport({
    title: evil,
    config: { name: evil },
    records: syntheticRecords({ steps: 3, warmStartSteps: 0, roles: [evil], policies: ['p'] }),
    notes: [evil],
  });
  assert.ok(!hostile.includes('<img'));
  assert.deepEqual(checkMarkup(hostile), []);
});

test('same records, same bytes (no timestamps)', () => {
  assert.equal(renderReport({ title: 'plan-path', config, records }), html);
});

test('an empty run still renders a page that says so', () => {
  const empty = renderReport({ title: 'fresh', config: {}, records: [] });
  assert.deepEqual(checkMarkup(empty), []);
  assert.ok(empty.includes('No metrics recorded yet'));
  assert.ok(!empty.includes('NaN'));
});
