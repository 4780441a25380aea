// `npm install` in a clone (and `npm pack`) runs this: compile the TypeScript to dist/ unless
// dist/ is already newer than every source file, so a second install, or the first `npx troupe`
// in a clone that npm links rather than copies, starts at once instead of recompiling for
// tens of seconds. When it does compile, it says so first.
//
//   node scripts/prepare.mjs           # compile when stale
//   node scripts/prepare.mjs --force   # always compile
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const built = join(root, 'dist', 'src', 'index.js');

/** Newest modification time of the .ts files under `dir` (0 when it does not exist). */
function newestSource(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const sources = Math.max(statSync(join(root, 'tsconfig.json')).mtimeMs, ...['src', 'bench', 'experiments'].map((d) => newestSource(join(root, d))));
if (!process.argv.includes('--force') && existsSync(built) && statSync(built).mtimeMs >= sources) process.exit(0);

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('troupe: dist/ is missing or older than src/, and TypeScript is not installed; run npm install in the clone (it installs the dev dependencies)');
  process.exit(1);
}
console.error('troupe: compiling TypeScript to dist/ (about 20-60 s; skipped while dist/ is up to date)');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
