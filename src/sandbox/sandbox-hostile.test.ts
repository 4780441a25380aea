// Hostile-program tests of the sandbox: each attack has its own test
// and must be stopped and reported with the machine and Troupe's process unaffected.
// Run: npx tsx --test src/sandbox/sandbox-hostile.test.ts
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { py, sandbox, sandboxProcesses } from './sandbox-fixture.test-helper.js';
import { sandboxSkip } from './sandbox-skip.test-helper.js';

after(() => {
  assert.deepEqual(sandboxProcesses(), [], 'no sandboxed process may outlive the test file');
});

test('host files are not visible: /etc/passwd, the repository, ../ and the host scratch dir', { skip: sandboxSkip }, async () => {
  const secret = join(tmpdir(), `troupe-secret-${process.pid}`);
  writeFileSync(secret, 'secret');
  try {
    const r = await py(
      [
        'import os',
        `paths = ["/etc/passwd", "/etc/shadow", ${JSON.stringify(join(process.cwd(), 'package.json'))}, ${JSON.stringify(secret)}, "../etc/passwd", "/root/.bashrc"]`,
        'for p in paths:',
        '    try:',
        '        open(p).read(); print("READ", p)',
        '    except OSError as e:',
        '        print("denied", type(e).__name__)',
        'print(sorted(os.listdir("..")))',
        'print(sorted(os.listdir("/etc")))',
      ].join('\n'),
    );
    assert.equal(r.reason, 'ok', r.stderr);
    assert.doesNotMatch(r.stdout, /READ/);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.filter((l) => l.startsWith('denied')).length, 6);
    const root = lines[6] ?? '';
    assert.doesNotMatch(root, /'work'|'home'|'var'|'opt'|'srv'/, `sandbox root shows host folders: ${root}`);
    assert.match(root, /'box'/);
    assert.doesNotMatch(lines[7] ?? '', /passwd|shadow|hosts|resolv/);
  } finally {
    rmSync(secret, { force: true });
  }
});

test('a user namespace created inside sees the same sandbox root, not the host', { skip: sandboxSkip }, async () => {
  const r = await py(
    'import subprocess\np = subprocess.run(["unshare", "-Urm", "sh", "-c", "echo /*; cat /etc/passwd"], capture_output=True, text=True)\nprint(p.stdout.strip())\nprint(p.stderr.strip())',
  );
  assert.equal(r.reason, 'ok', r.stderr);
  const [listing, errors] = r.stdout.split('\n');
  // Rootless, the program is already in a user namespace and the kernel may refuse a nested one.
  if (sandbox.hostSetup().rootless && listing === '') return assert.match(errors ?? '', /unshare: /);
  assert.match(listing ?? '', /\/box/);
  assert.doesNotMatch(listing ?? '', /\/work|\/home|\/var/);
  assert.match(errors ?? '', /No such file/);
});

test('writes outside the scratch folder are denied and nothing reaches the host', { skip: sandboxSkip }, async () => {
  const marker = `troupe-escape-${process.pid}`;
  const r = await py(
    [
      'import os',
      `for p in ["/usr/${marker}", "/etc/${marker}", "/${marker}", "/proc/${marker}", "/box/../usr/lib/${marker}"]:`,
      '    try:',
      '        open(p, "w").write("x"); print("WROTE", p)',
      '    except OSError as e:',
      '        print("denied", type(e).__name__)',
      `open("/tmp/${marker}", "w").write("private tmp is fine")`,
      `open("${marker}", "w").write("box is fine")`,
      'print("done")',
    ].join('\n'),
  );
  assert.equal(r.reason, 'ok', r.stderr);
  assert.doesNotMatch(r.stdout, /WROTE/);
  assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('denied')).length, 5);
  for (const hostPath of [`/usr/${marker}`, `/etc/${marker}`, `/${marker}`, `/tmp/${marker}`, join(tmpdir(), marker)]) {
    assert.equal(existsSync(hostPath), false, `${hostPath} must not exist on the host`);
  }
});

test('the network is unreachable: no connection to a listening 127.0.0.1 port, no name resolution', { skip: sandboxSkip }, async () => {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const r = await py(
      [
        'import socket',
        'try:',
        `    socket.create_connection(("127.0.0.1", ${port}), timeout=1); print("CONNECTED")`,
        'except OSError as e:',
        '    print("connect failed", type(e).__name__)',
        'try:',
        '    socket.getaddrinfo("example.com", 80); print("RESOLVED")',
        'except OSError as e:',
        '    print("resolve failed", type(e).__name__)',
      ].join('\n'),
    );
    assert.equal(r.reason, 'ok', r.stderr);
    assert.match(r.stdout, /connect failed/);
    assert.match(r.stdout, /resolve failed/);
    assert.equal(connections, 0);
    const js = await sandbox.run({
      language: 'javascript',
      code: `require("net").connect(${port}, "127.0.0.1").on("connect", () => console.log("CONNECTED")).on("error", (e) => console.log("failed", e.code));`,
    });
    assert.match(js.stdout, /failed/);
    assert.equal(connections, 0);
  } finally {
    server.close();
  }
});

test('a fork bomb is contained and leaves no process behind', { skip: sandboxSkip }, async () => {
  // Each successful fork writes one byte (the process cap keeps that far below the output cap).
  const r = await py(
    ['import os', 'while True:', '    try:', '        if os.fork() > 0:', "            os.write(1, b'f')", '    except OSError:', '        pass'].join('\n'),
    { limits: { wallMs: 1000, processes: 16 } },
  );
  assert.equal(r.reason, 'timeout');
  // Not survivorsKilled: the timeout kills everything before the count, so it races with the
  // kernel reaping the bomb's processes.
  assert.match(r.stdout, /^f+$/, 'the bomb had forked before it was stopped');
  assert.deepEqual(sandboxProcesses(), []);
  // The machine still starts processes normally.
  assert.equal(spawnSync('true').status, 0);
});

// Time limits far above what the allocation takes, so on a loaded machine the run still ends
// at the memory limit and never at the clock: the outcome does not depend on the load.
const ONLY_MEMORY_ENDS_IT = { wallMs: 120_000, cpuMs: 60_000 };

test('endless allocation hits the memory limit', { skip: sandboxSkip }, async () => {
  const r = await py('chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024 * 1024))', { limits: { memoryMb: 64, ...ONLY_MEMORY_ENDS_IT } });
  assert.equal(r.reason, 'memory');
  assert.match(r.stderr, /MemoryError/);
  const js = await sandbox.run({
    language: 'javascript',
    code: 'const a = []; for (;;) a.push(new Array(1e6).fill(1.5));',
    limits: { memoryMb: 128, ...ONLY_MEMORY_ENDS_IT },
  });
  assert.equal(js.reason, 'memory', js.stderr.slice(-400));
});

test('endless printing is cut at the output cap and killed', { skip: sandboxSkip }, async () => {
  const r = await py('while True:\n    print("spam " * 100)', { limits: { outputBytes: 1000, wallMs: 5000 } });
  assert.equal(r.reason, 'output-limit');
  assert.equal(r.stdoutTruncated, true);
  assert.equal(Buffer.byteLength(r.stdout), 1000);
  assert.ok(r.stdout.startsWith('spam spam'));
});

test('a child started in the background is gone after the run', { skip: sandboxSkip }, async () => {
  const r = await py(
    ['import subprocess, os', 'p = subprocess.Popen(["sleep", "1000"], start_new_session=True)', 'if os.fork() == 0:', '    os.setsid()', '    import time; time.sleep(1000)', 'print(p.pid)'].join('\n'),
  );
  assert.equal(r.reason, 'ok', r.stderr);
  assert.equal(r.survivorsKilled, 2);
  assert.deepEqual(sandboxProcesses(), []);
});

test("Troupe's own process is unaffected by programs that attack it", { skip: sandboxSkip }, async () => {
  const r = await py(
    [
      'import os, signal',
      `for pid in [${process.pid}, ${process.ppid}, 1, -1]:`,
      '    try:',
      '        os.kill(pid, signal.SIGKILL); print("killed", pid)',
      '    except OSError as e:',
      '        print("refused", pid, type(e).__name__)',
    ].join('\n'),
  );
  // kill(-1) only reaches the program itself inside its namespace.
  assert.ok(r.reason === 'killed' || r.reason === 'ok', r.reason);
  assert.doesNotMatch(r.stdout, new RegExp(`killed (${process.pid}|${process.ppid})\\b`));
  // Rootless, the init has the program's uid, so kill(1) is allowed, but the kernel drops a
  // SIGKILL sent to a namespace's init from inside it: the run still ends with its report.
  // (A reason at all means the init reported.)
  if (!sandbox.hostSetup().rootless) assert.doesNotMatch(r.stdout, /killed 1\b/);
  process.kill(process.pid, 0); // still alive: throws if not
});

test('filling the scratch disk fails inside the program (ENOSPC), not on the host', { skip: sandboxSkip }, async () => {
  const r = await py(
    [
      'import errno',
      'try:',
      '    with open("big", "wb") as f:',
      '        for _ in range(100):',
      '            f.write(b"x" * 1024 * 1024)',
      '    print("WROTE 100 MiB")',
      'except OSError as e:',
      '    print("full", errno.errorcode[e.errno])',
      'import os; os.remove("big")',
      'n = 0',
      'try:',
      '    while n < 100000:',
      '        open("f%d" % n, "w").close(); n += 1',
      'except OSError as e:',
      '    print("inodes", errno.errorcode[e.errno], n < 100000)',
    ].join('\n'),
    // The program ends by itself once the inodes run out; the wall limit is only a backstop, long
    // enough for a loaded host (5 s timed out at a load average of 13 on 2 cores).
    { limits: { diskMb: 4, wallMs: 60_000 } },
  );
  assert.equal(r.reason, 'ok', r.stderr);
  assert.match(r.stdout, /^full (ENOSPC|EFBIG)$/m);
  assert.match(r.stdout, /^inodes ENOSPC True$/m);
});

test('the program sees only its own processes, not the init nor the host', { skip: sandboxSkip }, async () => {
  const r = await py('import os\nprint(sorted(int(p) for p in os.listdir("/proc") if p.isdigit()), os.getpid(), os.getppid())');
  assert.equal(r.reason, 'ok', r.stderr);
  const [pids, pid, ppid] = r.stdout.trim().split(/ (?=\d)/);
  assert.equal(pids, `[${pid}]`, 'only itself');
  assert.equal(ppid, '1', 'its parent is the namespace init');
});
