import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { writeReport } from './write-report.js';
import { MetricsWriter } from '../metrics/metrics-writer.js';
import { syntheticRecords } from '../metrics/synthetic-records.test-helper.js';
import { testDir } from '../../util/test-dir.test-helper.js';

const root = testDir('troupe-report-');

function runDir(name: string, config?: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const writer = new MetricsWriter(join(dir, 'metrics.jsonl'));
  for (const r of syntheticRecords({ steps: 6, warmStartSteps: 3, evalEvery: 3 })) writer.write(r);
  if (config !== undefined) writeFileSync(join(dir, 'config.yaml'), config);
  return dir;
}

test('writes report.html from metrics.jsonl and config.yaml, titled by the config name', () => {
  const dir = runDir('a', 'name: team-run\nseed: 9\n');
  const path = writeReport(dir);
  assert.equal(path, join(dir, 'report.html'));
  const html = readFileSync(path, 'utf8');
  assert.match(html, /<h1>team-run<\/h1>/);
  assert.ok(html.includes('seed: 9'));
  assert.deepEqual(readdirSync(dir).sort(), ['config.yaml', 'metrics.jsonl', 'report.html']);
});

test('a killed run (cut-short last line) still gets a report, with the skip mentioned', () => {
  const dir = runDir('killed', 'seed: 1\n');
  appendFileSync(join(dir, 'metrics.jsonl'), '{"kind":"train","st');
  const html = readFileSync(writeReport(dir), 'utf8');
  assert.match(html, /<h1>killed<\/h1>/); // no name in the config: the folder name
  assert.match(html, /skipped the last line/);
});

test('a missing config is noted; missing metrics is an io error naming the folder', () => {
  const dir = runDir('no-config');
  assert.match(readFileSync(writeReport(dir, { title: 'T' }), 'utf8'), /config\.yaml is missing/);
  const empty = join(root, 'empty');
  mkdirSync(empty);
  assert.throws(() => writeReport(empty), (e: unknown) => e instanceof TroupeError && e.category === 'io' && e.message.includes(empty));
});
