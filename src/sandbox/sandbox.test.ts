// Running programs in the sandbox: results, exit reasons, time limits, determinism,
// concurrency and the errors of bad requests. Attacks are in sandbox-hostile.test.ts.
// Run: npx tsx --test src/sandbox/sandbox.test.ts
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { after, test } from 'node:test';
import { isSandboxUid, Sandbox } from './sandbox.js';
import { py, sandbox, sandboxProcesses } from './sandbox-fixture.test-helper.js';
import { sandboxSkip } from './sandbox-skip.test-helper.js';

after(() => {
  assert.deepEqual(sandboxProcesses(), [], 'no sandboxed process may outlive the test file');
});

test('a python program reads stdin and writes stdout', { skip: sandboxSkip }, async () => {
  const r = await py('import sys\nn = int(sys.stdin.read())\nprint(n * 2)\nprint("err", file=sys.stderr)', { stdin: '21\n' });
  assert.equal(r.reason, 'ok');
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, '42\n');
  assert.equal(r.stderr, 'err\n');
  assert.equal(r.stdoutTruncated, false);
  assert.ok(r.maxRssKb > 0, `the program's peak memory is reported (${r.maxRssKb} KiB)`);
});

test('a javascript program reads stdin and writes stdout', { skip: sandboxSkip }, async () => {
  const r = await sandbox.run({
    language: 'javascript',
    code: 'const s = require("fs").readFileSync(0, "utf8"); console.log(s.trim().split(" ").map(Number).reduce((a, b) => a + b));',
    stdin: '1 2 3 4',
  });
  assert.equal(r.reason, 'ok');
  assert.equal(r.stdout, '10\n');
});

test('input files sit beside the program in the working directory', { skip: sandboxSkip }, async () => {
  const r = await py('print(open("data/in.txt").read().upper())', { files: { 'data/in.txt': 'abc' } });
  assert.equal(r.reason, 'ok');
  assert.equal(r.stdout, 'ABC\n');
});

test('the program runs as an unprivileged uid with no capabilities or groups', { skip: sandboxSkip }, async () => {
  const r = await py(
    'import os\nst = open("/proc/self/status").read()\ncap = [l for l in st.splitlines() if l.startswith("CapEff")][0]\nprint(os.getuid(), os.getgid(), os.getgroups(), cap.split()[1])',
  );
  assert.equal(r.reason, 'ok');
  const [uid, gid, groups, capEff] = r.stdout.trim().split(' ');
  assert.equal(capEff, '0000000000000000');
  if (sandbox.hostSetup().rootless) {
    // Without root: uid 0 of a user namespace that maps it to this (unprivileged) user only.
    assert.deepEqual([uid, gid], ['0', '0']);
    return;
  }
  assert.ok(isSandboxUid(Number(uid)), `uid ${uid} should be a sandbox uid`);
  assert.equal(gid, uid);
  assert.equal(groups, '[]');
});

test('without root the program is this user outside, and holds no capability nor any way back to one', { skip: sandboxSkip || (process.getuid?.() === 0 && 'runs only without root (as root the sandbox switches uid instead)') }, async () => {
  const r = await py(
    'import os\nst = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines())\nprint(open("/proc/self/uid_map").read().split(), [st[k].strip() for k in ("CapEff", "CapPrm", "CapInh", "CapBnd", "CapAmb", "NoNewPrivs")])',
  );
  assert.equal(r.reason, 'ok', r.stderr);
  const zero = '0000000000000000';
  assert.equal(r.stdout.trim(), `['0', '${process.getuid?.()}', '1'] ['${zero}', '${zero}', '${zero}', '${zero}', '${zero}', '1']`);
  const js = await sandbox.run({ language: 'javascript', code: 'console.log(require("fs").readFileSync("/proc/self/status", "utf8").match(/^CapEff:\\s+(\\w+)/m)[1])' });
  assert.equal(js.stdout.trim(), zero, 'an exec as uid 0 regains nothing (securebits NOROOT)');
});

test('a syntax error ends with reason error', { skip: sandboxSkip }, async () => {
  const r = await py('def f(:\n  pass\n');
  assert.equal(r.reason, 'error');
  assert.notEqual(r.exitCode, 0);
  assert.match(r.stderr, /SyntaxError/);
  const js = await sandbox.run({ language: 'javascript', code: 'function (' });
  assert.equal(js.reason, 'error');
  assert.match(js.stderr, /SyntaxError/);
});

test('an uncaught exception ends with reason error', { skip: sandboxSkip }, async () => {
  const r = await py('raise ValueError("boom")');
  assert.equal(r.reason, 'error');
  assert.equal(r.exitCode, 1);
  assert.match(r.stderr, /ValueError: boom/);
});

test('an endless computation hits the CPU limit', { skip: sandboxSkip }, async () => {
  // A wall-clock limit far above the CPU one: on a busy machine 1 s of CPU can take many seconds.
  const r = await py('x = 0\nwhile True:\n    x += 1', { limits: { wallMs: 120_000, cpuMs: 1000 } });
  assert.equal(r.reason, 'timeout');
  assert.equal(r.signal, 24, 'SIGXCPU from RLIMIT_CPU, not the wall clock');
  assert.ok(r.cpuMs > 0);
});

test('sleeping forever hits the wall-clock limit', { skip: sandboxSkip }, async () => {
  const r = await py('import time\nprint("start", flush=True)\ntime.sleep(1000)', { limits: { wallMs: 700 } });
  assert.equal(r.reason, 'timeout');
  assert.equal(r.signal, 9);
  assert.equal(r.stdout, 'start\n', 'output written before the timeout is kept');
  assert.ok(r.durationMs >= 650, `duration ${r.durationMs} ms`);
  assert.ok(r.cpuMs < 500, 'a sleeping program uses no CPU');
});

test('python runs are deterministic: string hashing is seeded, not random', { skip: sandboxSkip }, async () => {
  const code = 'print(hash("troupe"), list({"a", "b", "c", "d"}))';
  const [a, b] = await Promise.all([py(code), py(code)]);
  assert.equal(a.reason, 'ok');
  assert.equal(a.stdout, b.stdout);
});

test('the concurrency limit queues programs beyond it', { skip: sandboxSkip }, async () => {
  const one = new Sandbox({ concurrency: 1, limits: { wallMs: 2000 } });
  const runs = [1, 2, 3].map((n) => one.run({ language: 'python', code: `print(${n})` }));
  assert.equal(one.active, 1);
  assert.equal(one.queued, 2);
  const results = await Promise.all(runs);
  assert.deepEqual(
    results.map((r) => r.stdout),
    ['1\n', '2\n', '3\n'],
  );
  assert.equal(one.active, 0);
  assert.equal(one.queued, 0);
});

test('bad requests are user errors, not sandbox runs', { skip: sandboxSkip }, async () => {
  await assert.rejects(py('print(1)', { files: { '../x': 'y' } }), /not allowed/);
  await assert.rejects(sandbox.run({ language: 'ruby' as 'python', code: '' }), /unknown sandbox language 'ruby'/);
  assert.throws(() => new Sandbox({ concurrency: 0 }), /concurrency/);
  await assert.rejects(py('print(1)', { limits: { wallMs: -1 } }), /wallMs/);
});

test('by default as many programs run at once as TROUPE_THREADS says (at most 64), else the cores', () => {
  const saved = process.env.TROUPE_THREADS;
  try {
    process.env.TROUPE_THREADS = '3';
    assert.equal(new Sandbox().concurrency, 3);
    process.env.TROUPE_THREADS = '200';
    assert.equal(new Sandbox().concurrency, 64);
    delete process.env.TROUPE_THREADS;
    assert.equal(new Sandbox().concurrency, Math.min(64, availableParallelism()));
    assert.equal(new Sandbox({ concurrency: 5 }).concurrency, 5, 'an explicit concurrency wins');
  } finally {
    if (saved === undefined) delete process.env.TROUPE_THREADS;
    else process.env.TROUPE_THREADS = saved;
  }
});

test('a missing python3 is a sandbox error that names the command and the fix', { skip: sandboxSkip }, async () => {
  const broken = new Sandbox({ python: 'no-such-python3' });
  await assert.rejects(broken.run({ language: 'python', code: 'print(1)' }), (error: Error & { category?: string }) => {
    assert.equal(error.category, 'sandbox');
    assert.match(error.message, /could not start 'no-such-python3'.*apt-get install -y python3/);
    return true;
  });
});
