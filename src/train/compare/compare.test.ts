// `compare` on run folders with made-up metrics (exact numbers to check the table against) and,
// through the CLI, on two tiny real training runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compare } from '../../api/compare.js';
import { TroupeError } from '../../util/errors.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { syntheticRecords } from '../metrics/synthetic-records.test-helper.js';
import type { MetricsRecord } from '../metrics/types.js';
import { checkMarkup } from '../report/check-markup.test-helper.js';
import { runTraining } from '../run-training.js';
import { cliPath, tinyRun } from '../tiny-run.test-helper.js';

const root = testDir('troupe-compare-');

/** A run folder whose last held-out evaluation (after step `steps - 1`) scored `rate` on `n` tasks. */
function fakeRun(name: string, rate: number, n = 200, options: { steps?: number; seed?: number; records?: MetricsRecord[] } = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const steps = options.steps ?? 12;
  const records = options.records ?? syntheticRecords({ seed: options.seed ?? 1, steps, warmStartSteps: 2, evalEvery: 4 });
  const last = records.filter((r) => r.kind === 'eval').at(-1);
  const lines = records.map((r) => (r === last ? { ...r, success_rate: rate, n, ci_low: null, ci_high: null } : r));
  writeFileSync(join(dir, 'metrics.jsonl'), lines.map((r) => JSON.stringify(r)).join('\n') + '\n');
  writeFileSync(join(dir, 'config.yaml'), `name: ${name}\n`);
  return dir;
}

/** The cells of the markdown table's data rows. */
const cells = (markdown: string) =>
  markdown
    .trim()
    .split('\n')
    .slice(2)
    .map((line) => line.split('|').slice(1, -1).map((c) => c.trim()));

/** The SVG of one figure of the page. */
const figure = (html: string, id: string) => {
  const start = html.indexOf(`<figure id="${id}">`);
  assert.ok(start >= 0, `the page has a ${id} figure`);
  return html.slice(start, html.indexOf('</figure>', start));
};

test('the table gives each run its final held-out success with a 95% Wilson interval, n and step; seeds of one recipe are one row', async () => {
  const runs = [fakeRun('pp-seed1', 0.875), fakeRun('pp-seed2', 0.88, 200, { seed: 2 }), fakeRun('pp-seed3', 0.915, 200, { seed: 3 }), fakeRun('single', 0.5, 100, { steps: 8 })];
  const { markdown, rows } = await compare({ runs });
  assert.equal(markdown.split('\n')[0], '| run | seeds | held-out success % | 95% Wilson interval % | n | after RL step |');
  // Wilson intervals worked by hand: 175/200 -> [0.8220, 0.9139], 176/200 -> [0.8277, 0.9180], 183/200 -> [0.8681, 0.9463], 50/100 -> [0.4038, 0.5962].
  assert.deepEqual(cells(markdown), [
    ['pp', '1, 2, 3', '89.0 (87.5 / 88.0 / 91.5)', '82.2-91.4 / 82.8-91.8 / 86.8-94.6', '200', '11'],
    ['single', '', '50.0', '40.4-59.6', '100', '7'],
  ]);
  assert.equal(rows.length, 2);
  assert.deepEqual(rows[0]!.members.map((m) => [m.run, m.seed, m.n, m.step]), [['pp-seed1', 1, 200, 11], ['pp-seed2', 2, 200, 11], ['pp-seed3', 3, 200, 11]]);
  assert.ok(Math.abs(rows[0]!.meanSuccess - (0.875 + 0.88 + 0.915) / 3) < 1e-12);
  assert.ok(Math.abs(rows[1]!.members[0]!.ciLow - 0.4038) < 1e-4 && Math.abs(rows[1]!.members[0]!.ciHigh - 0.5962) < 1e-4);
});

test('a seed folder without siblings is a group of one: named after its base, with its seed and its number', async () => {
  const runs = [fakeRun('lone-seed3', 0.875, 200, { seed: 3 }), fakeRun('plain', 0.5, 100, { steps: 8 })];
  const { markdown, rows } = await compare({ runs });
  assert.deepEqual(cells(markdown), [
    ['lone', '3', '87.5', '82.2-91.4', '200', '11'],
    ['plain', '', '50.0', '40.4-59.6', '100', '7'],
  ]);
  assert.deepEqual(rows.map((r) => [r.name, r.members.map((m) => [m.run, m.seed])]), [['lone', [['lone-seed3', 3]]], ['plain', [['plain', undefined]]]]);
  assert.equal(rows[0]!.meanSuccess, 0.875);
});

test('the page is one self-contained file with one held-out curve per run on shared axes, and reward, entropy and turns panels', async () => {
  const out = join(root, 'pages', 'compare.html');
  const runs = [fakeRun('page-a-seed1', 0.6), fakeRun('page-a-seed2', 0.7, 200, { seed: 2 }), fakeRun('page-b', 0.4, 200, { steps: 20 })];
  const { html } = await compare({ runs, out, title: 'A vs B' });
  assert.equal(readFileSync(out, 'utf8'), html, 'written to --out');
  assert.deepEqual(checkMarkup(html), []);
  assert.doesNotMatch(html, /<script|<link|<img|\ssrc=|href="http|url\(/i, 'nothing is fetched');
  assert.match(html, /<h1>A vs B<\/h1>/);
  const heldOut = figure(html, 'held-out');
  for (const name of ['page-a-seed1', 'page-a-seed2', 'page-b']) assert.equal(heldOut.split(`>${name}</text>`).length - 1, 1, `${name} has one legend entry`);
  assert.equal((heldOut.match(/<path d="M[^"]*" fill="none" stroke="/g) ?? []).length, 3, 'one held-out line per run');
  assert.equal((heldOut.match(/<svg /g) ?? []).length, 1, 'all runs on one chart (shared axes)');
  // A seed group shares its colour; the other run has its own.
  const colour = (name: string) => new RegExp(`<line [^>]*stroke="(#[0-9A-F]{6})"[^>]*/>(?:<circle [^>]*/>)?<text class="legend"[^>]*>${name}<`).exec(heldOut)?.[1];
  assert.notEqual(colour('page-b'), undefined, 'the legend shows each run\'s colour');
  assert.equal(colour('page-a-seed1'), colour('page-a-seed2'));
  assert.notEqual(colour('page-a-seed1'), colour('page-b'));
  for (const id of ['reward', 'entropy', 'turns']) assert.equal(figure(html, id).split('</text>').filter((t) => /page-(a-seed\d|b)$/.test(t)).length, 3, `${id}: one line per run`);
  assert.match(html, /<td>page-a<\/td><td>1, 2<\/td><td>65\.0 \(60\.0 \/ 70\.0\)<\/td>/, 'the table heads the page');
});

test('panels no run recorded are left out and named', async () => {
  const evalsOnly = syntheticRecords({ steps: 4, warmStartSteps: 0, evalEvery: 2 }).filter((r) => r.kind === 'eval');
  const { html } = await compare({ runs: [fakeRun('evals-only', 0.3, 50, { records: evalsOnly })] });
  figure(html, 'held-out');
  assert.ok(!html.includes('<figure id="reward">'));
  assert.match(html, /Not recorded by these runs: Reward \(total, mean over roles\), Entropy \(mean over policies\), Turns per episode \(training\)\./);
});

test('a folder that is not a run, a run without a held-out evaluation, and two runs of one name are refused by name', async () => {
  const refused = async (runs: string[], pattern: RegExp) =>
    assert.rejects(compare({ runs }), (error: unknown) => error instanceof TroupeError && error.category === 'input' && pattern.test(error.message));
  const good = fakeRun('good', 0.5);
  const empty = join(root, 'empty');
  mkdirSync(empty);
  await refused([good, empty], new RegExp(`^${empty} is not a run folder: it has no metrics\\.jsonl and no config\\.yaml`));
  writeFileSync(join(empty, 'config.yaml'), 'name: empty\n');
  await refused([empty], new RegExp(`^${empty} is not a run folder: it has no metrics\\.jsonl, which troupe train writes`));
  await refused([join(root, 'nowhere')], /nowhere does not exist/);
  await refused([join(good, 'metrics.jsonl')], /metrics\.jsonl is a file, not a run folder/);
  const young = fakeRun('young', 0, 1, { records: syntheticRecords({ steps: 3, warmStartSteps: 1 }).filter((r) => r.kind !== 'eval') });
  await refused([good, young], new RegExp(`^${young} has no held-out evaluation yet \\(metrics\\.jsonl holds 3 RL step\\(s\\) and no eval record`));
  mkdirSync(join(root, 'elsewhere'));
  const twin = join(root, 'elsewhere', 'good');
  mkdirSync(twin);
  writeFileSync(join(twin, 'metrics.jsonl'), readFileSync(join(good, 'metrics.jsonl')));
  await refused([good, twin], /two run folders are named good/);
  await refused([], /at least one run folder/);
});

test('troupe compare on two tiny training runs: the table on stdout matches their metrics, the page has both curves', () => {
  const { dir, config } = tinyRun({ map: 'shared', prefix: 'troupe-compare-runs-', train: '{ steps: 2, eval_every: 1, eval_tasks: 6, checkpoint_every: 0, samples_every: 0 }' });
  const finals: number[] = [];
  const runDirs = [1, 2].map((seed) => join(dir, `tiny-seed${seed}`));
  return (async () => {
    for (const [i, runDir] of runDirs.entries()) {
      await runTraining({ config, runDir, set: [`seed=${i + 1}`], stream: { write: () => true } });
      const evals = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.kind === 'eval');
      assert.deepEqual(evals.map((r) => r.step), [-1, 0, 1]);
      finals.push(evals.at(-1).success_rate);
    }
    const out = join(dir, 'compare.html');
    const result = spawnSync(process.execPath, [cliPath, 'compare', ...runDirs, '--out', out], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.status, 0, result.stderr);
    const pct = (x: number) => (100 * x).toFixed(1);
    const [row] = cells(result.stdout);
    assert.deepEqual(row!.slice(0, 3), ['tiny', '1, 2', `${pct((finals[0]! + finals[1]!) / 2)} (${pct(finals[0]!)} / ${pct(finals[1]!)})`]);
    assert.deepEqual(row!.slice(4), ['6', '1']);
    assert.match(result.stderr, /wrote .*compare\.html/);
    const heldOut = figure(readFileSync(out, 'utf8'), 'held-out');
    assert.equal((heldOut.match(/<path d="M[^"]*" fill="none" stroke="/g) ?? []).length, 2, 'one held-out line per run');
  })();
});
