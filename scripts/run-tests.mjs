// Runs every compiled test file (dist/src/**/*.test.js) with Node's test runner.
// Usage: npm test            (builds first)
//        node scripts/run-tests.mjs [substring ...]   (only files whose path contains one of them)
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith('.test.js')) found.push(path);
  }
  return found;
}

const filters = process.argv.slice(2);
// dist/ outlives the sources: a test that was moved or deleted leaves its compiled copy behind,
// which would run stale code against the current modules. Only files with a source run.
const compiled = findTests('dist/src');
const orphaned = compiled.filter((f) => !existsSync(f.replace(/^dist\//, '').replace(/\.js$/, '.ts')));
if (orphaned.length > 0) {
  console.error(`not running ${orphaned.length} compiled test file(s) whose source is gone: ${orphaned.join(', ')}`);
}
const files = compiled
  .filter((f) => !orphaned.includes(f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files found under dist/src${filters.length ? ` matching ${filters.join(', ')}` : ''}; run 'npm run build' first`);
  process.exit(1);
}
// The native backend's tests need the addon: build it when missing or older than its sources
// (a checkout that never ran npm install, or pulled C++ changes). Never fails: without a
// compiler it warns and the native tests report why.
if (process.env.TROUPE_NO_NATIVE !== '1') {
  spawnSync(process.execPath, ['scripts/build-native.mjs', '--if-stale'], { stdio: 'inherit' });
}
// Besides the spec output, skip-reporter.mjs notes every skipped test with its reason and
// kernel-path-reporter.mjs every kernel path whose conformance suite ran, for the two summary
// lines at the end.
const noteDir = mkdtempSync(join(tmpdir(), 'troupe-test-notes-'));
const skipFile = join(noteDir, 'skips.jsonl');
const pathFile = join(noteDir, 'kernel-paths.txt');
const reporter = (name) => new URL(`./${name}`, import.meta.url).href;
const result = spawnSync(
  process.execPath,
  [
    '--test',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    `--test-reporter=${reporter('skip-reporter.mjs')}`, `--test-reporter-destination=${skipFile}`,
    `--test-reporter=${reporter('kernel-path-reporter.mjs')}`, `--test-reporter-destination=${pathFile}`,
    ...files,
  ],
  { stdio: 'inherit' },
);
console.log(skipSummary(existsSync(skipFile) ? readFileSync(skipFile, 'utf8') : ''));
console.log(await kernelPathLine(existsSync(pathFile) ? readFileSync(pathFile, 'utf8') : ''));
rmSync(noteDir, { recursive: true, force: true });
process.exit(result.status ?? 1);

/** Which instruction-set paths the run exercised, and which this machine could not run. */
async function kernelPathLine(text) {
  const { kernelPathSummary, kernelPaths } = await import('../dist/src/engine/kernels/kernel-paths.js');
  return kernelPathSummary(new Set(text.split('\n').filter(Boolean)), kernelPaths());
}

/** One line: how many tests were skipped, grouped by reason (most first). */
function skipSummary(jsonl) {
  const byReason = new Map();
  for (const line of jsonl.split('\n').filter(Boolean)) {
    const { reason } = JSON.parse(line);
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  }
  const total = [...byReason.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return 'skipped: none';
  const parts = [...byReason].sort((a, b) => b[1] - a[1]).map(([reason, n]) => `${n} (${reason})`);
  return `skipped ${total} test(s): ${parts.join('; ')}`;
}
