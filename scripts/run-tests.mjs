// Runs every compiled test file (dist/src/**/*.test.js) with Node's test runner.
// Usage: npm test            (builds first)
//        node scripts/run-tests.mjs [substring ...]   (only files whose path contains one of them)
import { existsSync, readdirSync, statSync } from 'node:fs';
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
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
