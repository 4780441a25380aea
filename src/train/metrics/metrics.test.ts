import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { MetricsWriter, serializeMetricsRecord } from './metrics-writer.js';
import { successOf } from './success-of.js';
import { parseMetrics, readMetrics } from './read-metrics.js';
import { truncateMetrics } from './truncate-metrics.js';
import { syntheticRecords } from './synthetic-records.test-helper.js';
import type { MetricsRecord, TrainRecord } from './types.js';
import { testDir } from '../../util/test-dir.test-helper.js';

const dir = testDir('troupe-metrics-');
const records = syntheticRecords({ steps: 12, warmStartSteps: 4, evalEvery: 4 });
const train = records.find((r): r is TrainRecord => r.kind === 'train')!;

function writeAll(path: string, list: readonly MetricsRecord[]): void {
  const writer = new MetricsWriter(path);
  for (const r of list) writer.write(r);
}

test('writer appends one line per record, creating the folder; reader returns them unchanged', () => {
  const path = join(dir, 'nested', 'run', 'metrics.jsonl');
  writeAll(path, records.slice(0, 5));
  assert.equal(readFileSync(path, 'utf8').split('\n').length, 6); // five lines + final newline
  writeAll(path, records.slice(5));
  const read = readMetrics(path);
  assert.deepEqual(read.records, JSON.parse(JSON.stringify(records)));
  assert.deepEqual(read.warnings, []);
});

test('NaN and Infinity are written as null (not measured)', () => {
  const line = serializeMetricsRecord({ ...train, samples_per_s: Number.NaN, lr: Number.POSITIVE_INFINITY });
  const back = JSON.parse(line);
  assert.equal(back.samples_per_s, null);
  assert.equal(back.lr, null);
  assert.ok(line.endsWith('}\n'));
});

test('the writer refuses a record the reader could not read back', () => {
  assert.throws(
    () => serializeMetricsRecord({ ...train, episodes: -3 }),
    (e: unknown) => e instanceof TroupeError && e.category === 'invariant' && /episodes/.test(e.message),
  );
});

test('a cut-short last line is skipped with a warning naming the line', () => {
  const text = records.slice(0, 3).map(serializeMetricsRecord).join('') + serializeMetricsRecord(records[3]!).slice(0, 25);
  const read = parseMetrics(text, 'm.jsonl');
  assert.equal(read.records.length, 3);
  assert.equal(read.warnings.length, 1);
  assert.match(read.warnings[0]!, /m\.jsonl:4/);
});

test('a corrupt line in the middle fails loudly, naming the line', () => {
  const lines = records.slice(0, 4).map(serializeMetricsRecord);
  lines[1] = lines[1]!.slice(0, 20) + '\n';
  assert.throws(() => parseMetrics(lines.join(''), 'm.jsonl'), (e: unknown) => e instanceof TroupeError && e.category === 'io' && /m\.jsonl:2 /.test(e.message));
});

test('a well-formed JSON line that is not a record fails, naming the line and the field', () => {
  const lines = records.slice(0, 3).map(serializeMetricsRecord);
  lines.push('{"kind":"train","step":"three"}\n');
  assert.throws(() => parseMetrics(lines.join(''), 'm.jsonl'), (e: unknown) => e instanceof TroupeError && /m\.jsonl:4 /.test(e.message) && /step/.test(e.message));
  assert.throws(() => parseMetrics('{"kind":"debug","step":1}\n', 'm.jsonl'), /m\.jsonl:1 /);
});

test('unknown extra fields are kept (a newer writer stays readable)', () => {
  const read = parseMetrics(JSON.stringify({ ...train, future_field: 7 }) + '\n');
  assert.equal((read.records[0] as unknown as { future_field: number }).future_field, 7);
});

test('a missing file is an io error that names the path', () => {
  assert.throws(() => readMetrics(join(dir, 'nope.jsonl')), (e: unknown) => e instanceof TroupeError && e.category === 'io' && /nope\.jsonl/.test(e.message));
});

test('truncateMetrics(rl) keeps warm-start records and RL records up to the step, byte for byte', () => {
  const path = join(dir, 'trunc', 'metrics.jsonl');
  writeAll(path, records);
  appendFileSync(path, '{"kind":"tra'); // killed mid-write
  const result = truncateMetrics(path, 5);
  const expected = records.filter((r) => r.kind === 'warm-start' || r.step <= 5);
  assert.equal(readFileSync(path, 'utf8'), expected.map(serializeMetricsRecord).join(''));
  assert.equal(result.kept, expected.length);
  assert.equal(result.dropped, records.length - expected.length);
  assert.equal(result.warnings.length, 1);
  // The base-policy eval (step -1) survives a cut back to before the first RL step.
  truncateMetrics(path, -1);
  const left = readMetrics(path).records;
  assert.deepEqual(left.map((r) => r.kind === 'warm-start' ? 'w' : `${r.kind}${r.step}`), [...'wwww', 'eval-1']);
  assert.deepEqual(readdirSync(join(dir, 'trunc')), ['metrics.jsonl']); // no temp files left behind
});

test('truncateMetrics(warm-start) drops later warm-start steps and all RL records', () => {
  const path = join(dir, 'trunc-ws.jsonl');
  writeAll(path, records);
  truncateMetrics(path, 1, 'warm-start');
  assert.deepEqual(readMetrics(path).records.map((r) => `${r.kind}${r.step}`), ['warm-start0', 'warm-start1']);
});

test('truncateMetrics on a missing file leaves it missing', () => {
  const path = join(dir, 'never.jsonl');
  assert.deepEqual(truncateMetrics(path, 3), { kept: 0, dropped: 0, warnings: [] });
  assert.equal(existsSync(path), false);
  writeFileSync(join(dir, 'blank.jsonl'), '\n\n');
  assert.equal(readMetrics(join(dir, 'blank.jsonl')).records.length, 0);
});

test('train success is the search\'s only when the best branch or joint action continues', () => {
  assert.equal(successOf({ mode: 'tree', k: 4 }), 'best-branch');
  assert.equal(successOf({ mode: 'tree', k: 4, continueWith: 'sampled' }), 'sampled');
  assert.equal(successOf({ mode: 'tree', k: 4, continueWith: 0.25 }), 'best-branch', 'a fraction still continues best branches');
  assert.equal(successOf({ mode: 'tree', k: 4, continueWith: 1 }), 'sampled');
  assert.equal(successOf({ mode: 'tree', k: 1 }), 'sampled');
  assert.equal(successOf({ mode: 'independent', k: 4 }), 'sampled');
  assert.equal(successOf({ mode: 'joint', k: 4, joint: { expand: 'best' } }), 'best-branch');
  assert.equal(successOf({ mode: 'joint', k: 4, joint: { expand: 'sampled' } }), 'sampled');
});
