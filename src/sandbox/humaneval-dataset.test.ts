// Runs every canonical solution of the HumanEval dataset through the sandbox and expects all
// 164 to pass with full assert credit. The dataset ships in datasets/humaneval/.
// Run: npx tsx --test src/sandbox/humaneval-dataset.test.ts
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { runHumanEval } from './run-humaneval.js';
import { Sandbox } from './sandbox.js';
import { shippedHumanEvalPath } from '../util/repo-root.test-helper.js';
import { sandboxSkip } from './sandbox-skip.test-helper.js';

interface HumanEvalRow {
  task_id: string;
  prompt: string;
  canonical_solution: string;
  test: string;
  entry_point: string;
}

test(
  'every HumanEval canonical solution passes all its asserts in the sandbox',
  { skip: sandboxSkip },
  async (t) => {
    const text = gunzipSync(readFileSync(shippedHumanEvalPath())).toString('utf8');
    const rows = text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as HumanEvalRow);
    assert.equal(rows.length, 164);
    const sandbox = new Sandbox({ concurrency: 2, limits: { wallMs: 20_000, cpuMs: 20_000 } });
    const started = performance.now();
    const reports = await Promise.all(
      rows.map((row) =>
        runHumanEval(sandbox, {
          prompt: row.prompt,
          completion: row.canonical_solution,
          test: row.test,
          entryPoint: row.entry_point,
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const failed = reports
      .map((r, i) => ({ r, id: rows[i]?.task_id }))
      .filter(({ r }) => !r.allPassed || r.passed !== r.total)
      .map(({ r, id }) => `${id}: ${r.passed}/${r.total} ${r.run.reason} ${r.failure?.message ?? ''}`);
    const asserts = reports.reduce((sum, r) => sum + r.total, 0);
    t.diagnostic(`164 canonical solutions in ${seconds.toFixed(1)} s on 2 slots (${asserts} asserts)`);
    assert.deepEqual(failed, []);
    assert.ok(reports.every((r) => r.total > 0), 'every problem has at least one counted assert');
  },
);
