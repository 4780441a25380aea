// Builds the native CPU backend (native/, a Node-API addon) with node-gyp. Run by
// `npm install` (the package's install script) and by hand: node scripts/build-native.mjs
// With --if-stale (scripts/run-tests.mjs) it builds only when the addon is missing or older
// than a file of native/src or binding.gyp, so a checkout that pulled C++ changes is rebuilt.
//
// It never fails the install: when TROUPE_NO_NATIVE=1 is set, or the compiler, node-gyp or
// the Node headers are missing, it prints ONE warning line and exits 0; Troupe then runs on
// its WebAssembly backend. The compiler's output goes to native/build.log.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const log = join(root, 'native', 'build.log');
const warn = (reason) => {
  console.warn(`troupe: native backend not built (${reason}); Troupe will use the WebAssembly backend`);
  process.exit(0);
};

if (process.env.TROUPE_NO_NATIVE === '1') warn('TROUPE_NO_NATIVE=1');
if (process.argv.includes('--if-stale') && upToDate()) process.exit(0);

function upToDate() {
  const addon = join(root, 'native', 'build', 'Release', 'troupe_native.node');
  if (!existsSync(addon)) return false;
  const sources = [join(root, 'native', 'binding.gyp'), ...readdirSync(join(root, 'native', 'src')).map((f) => join(root, 'native', 'src', f))];
  const built = statSync(addon).mtimeMs;
  return sources.every((file) => statSync(file).mtimeMs <= built);
}
if (process.arch !== 'x64' || process.platform !== 'linux') warn(`no native kernels for ${process.platform}-${process.arch} yet`);

/** node-gyp: the one npm passes to install scripts, a local copy, or the one bundled with npm. */
function findNodeGyp() {
  const candidates = [process.env.npm_config_node_gyp];
  try {
    candidates.push(createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js'));
  } catch {
    // not installed locally
  }
  const prefix = resolve(dirname(process.execPath), '..');
  candidates.push(join(prefix, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  return candidates.find((path) => path && existsSync(path));
}

const nodeGyp = findNodeGyp();
if (!nodeGyp) warn('node-gyp not found');
const args = [nodeGyp, 'rebuild', '--directory', join(root, 'native'), '--jobs', '2'];
// Build against the headers of the running Node when they are installed beside it (no
// download); an explicit npm_config_nodedir wins.
const prefix = resolve(dirname(process.execPath), '..');
if (!process.env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node_api.h'))) {
  args.push(`--nodedir=${prefix}`);
}
const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error' } });
writeFileSync(log, `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`);
if (result.status !== 0) {
  const lines = `${result.stderr ?? ''}`.split('\n').filter((l) => /error/i.test(l));
  warn(`${lines[0]?.trim().slice(0, 160) ?? 'node-gyp failed'}; see native/build.log`);
}
console.warn('troupe: native backend built (C++ kernels); Troupe will use it');
