// Hostile-program tests of the sandbox: each attack has its own test, with small limits so
// the file runs in a few seconds. Run: npx tsx --test src/sandbox/sandbox.test.ts
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { isSandboxUid, Sandbox } from './sandbox.js';
import type { RunRequest } from './types.js';

const sandbox = new Sandbox({
  concurrency: 2,
  limits: { wallMs: 2000, cpuMs: 1000, memoryMb: 128, outputBytes: 4096, processes: 16, diskMb: 8 },
});

function py(code: string, extra: Partial<RunRequest> = {}): ReturnType<Sandbox['run']> {
  return sandbox.run({ language: 'python', code, ...extra });
}

/** Pids of live (non-zombie) processes owned by any sandbox uid of this Troupe process. */
function sandboxProcesses(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      const state = /^State:\s+(\S)/m.exec(status)?.[1];
      if (isSandboxUid(uid) && state !== 'Z') found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

after(() => {
  assert.deepEqual(sandboxProcesses(), [], 'no sandboxed process may outlive the test file');
});

test('a python program reads stdin and writes stdout', async () => {
  const r = await py('import sys\nn = int(sys.stdin.read())\nprint(n * 2)\nprint("err", file=sys.stderr)', { stdin: '21\n' });
  assert.equal(r.reason, 'ok');
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, '42\n');
  assert.equal(r.stderr, 'err\n');
  assert.equal(r.stdoutTruncated, false);
  assert.ok(r.maxRssKb > 1000 && r.maxRssKb < 256 * 1024, `rss ${r.maxRssKb} KiB`);
});

test('a javascript program reads stdin and writes stdout', async () => {
  const r = await sandbox.run({
    language: 'javascript',
    code: 'const s = require("fs").readFileSync(0, "utf8"); console.log(s.trim().split(" ").map(Number).reduce((a, b) => a + b));',
    stdin: '1 2 3 4',
  });
  assert.equal(r.reason, 'ok');
  assert.equal(r.stdout, '10\n');
});

test('input files sit beside the program in the working directory', async () => {
  const r = await py('print(open("data/in.txt").read().upper())', { files: { 'data/in.txt': 'abc' } });
  assert.equal(r.reason, 'ok');
  assert.equal(r.stdout, 'ABC\n');
});

test('the program runs as an unprivileged uid with no capabilities or groups', async () => {
  const r = await py(
    'import os\nst = open("/proc/self/status").read()\ncap = [l for l in st.splitlines() if l.startswith("CapEff")][0]\nprint(os.getuid(), os.getgid(), os.getgroups(), cap.split()[1])',
  );
  assert.equal(r.reason, 'ok');
  const [uid, gid, groups, capEff] = r.stdout.trim().split(' ');
  assert.ok(isSandboxUid(Number(uid)), `uid ${uid} should be a sandbox uid`);
  assert.equal(gid, uid);
  assert.equal(groups, '[]');
  assert.equal(capEff, '0000000000000000');
});

test('a syntax error ends with reason error', async () => {
  const r = await py('def f(:\n  pass\n');
  assert.equal(r.reason, 'error');
  assert.notEqual(r.exitCode, 0);
  assert.match(r.stderr, /SyntaxError/);
  const js = await sandbox.run({ language: 'javascript', code: 'function (' });
  assert.equal(js.reason, 'error');
  assert.match(js.stderr, /SyntaxError/);
});

test('an uncaught exception ends with reason error', async () => {
  const r = await py('raise ValueError("boom")');
  assert.equal(r.reason, 'error');
  assert.equal(r.exitCode, 1);
  assert.match(r.stderr, /ValueError: boom/);
});

test('an endless computation hits the CPU limit', async () => {
  const r = await py('x = 0\nwhile True:\n    x += 1', { limits: { wallMs: 10_000, cpuMs: 1000 } });
  assert.equal(r.reason, 'timeout');
  assert.equal(r.signal, 24, 'SIGXCPU from RLIMIT_CPU, not the wall clock');
  assert.ok(r.cpuMs > 0);
});

test('sleeping forever hits the wall-clock limit', async () => {
  const r = await py('import time\nprint("start", flush=True)\ntime.sleep(1000)', { limits: { wallMs: 700 } });
  assert.equal(r.reason, 'timeout');
  assert.equal(r.signal, 9);
  assert.equal(r.stdout, 'start\n', 'output written before the timeout is kept');
  assert.ok(r.durationMs >= 650, `duration ${r.durationMs} ms`);
  assert.ok(r.cpuMs < 500, 'a sleeping program uses no CPU');
});

test('host files are not visible: /etc/passwd, the repository, ../ and the host scratch dir', async () => {
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

test('a user namespace created inside sees the same sandbox root, not the host', async () => {
  const r = await py(
    'import subprocess\np = subprocess.run(["unshare", "-Urm", "sh", "-c", "echo /*; cat /etc/passwd"], capture_output=True, text=True)\nprint(p.stdout.strip())\nprint(p.stderr.strip())',
  );
  assert.equal(r.reason, 'ok', r.stderr);
  const [listing, errors] = r.stdout.split('\n');
  assert.match(listing ?? '', /\/box/);
  assert.doesNotMatch(listing ?? '', /\/work|\/home|\/var/);
  assert.match(errors ?? '', /No such file/);
});

test('writes outside the scratch folder are denied and nothing reaches the host', async () => {
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

test('the network is unreachable: no connection to a listening 127.0.0.1 port, no name resolution', async () => {
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

test('a fork bomb is contained and leaves no process behind', async () => {
  const r = await py(
    ['import os', 'while True:', '    try:', '        os.fork()', '    except OSError:', '        pass'].join('\n'),
    { limits: { wallMs: 1000, processes: 16 } },
  );
  assert.equal(r.reason, 'timeout');
  assert.ok(r.survivorsKilled > 0, 'the bomb had forked before it was stopped');
  assert.deepEqual(sandboxProcesses(), []);
  // The machine still starts processes normally.
  assert.equal(spawnSync('true').status, 0);
});

test('endless allocation hits the memory limit', async () => {
  const r = await py('chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024 * 1024))', { limits: { memoryMb: 64 } });
  assert.equal(r.reason, 'memory');
  assert.match(r.stderr, /MemoryError/);
  const js = await sandbox.run({
    language: 'javascript',
    code: 'const a = []; for (;;) a.push(new Array(1e6).fill(1.5));',
    limits: { memoryMb: 128 },
  });
  assert.equal(js.reason, 'memory', js.stderr.slice(-400));
});

test('endless printing is cut at the output cap and killed', async () => {
  const r = await py('while True:\n    print("spam " * 100)', { limits: { outputBytes: 1000, wallMs: 5000 } });
  assert.equal(r.reason, 'output-limit');
  assert.equal(r.stdoutTruncated, true);
  assert.equal(Buffer.byteLength(r.stdout), 1000);
  assert.ok(r.stdout.startsWith('spam spam'));
});

test('a child started in the background is gone after the run', async () => {
  const r = await py(
    ['import subprocess, os', 'p = subprocess.Popen(["sleep", "1000"], start_new_session=True)', 'if os.fork() == 0:', '    os.setsid()', '    import time; time.sleep(1000)', 'print(p.pid)'].join('\n'),
  );
  assert.equal(r.reason, 'ok', r.stderr);
  assert.equal(r.survivorsKilled, 2);
  assert.deepEqual(sandboxProcesses(), []);
});

test("Troupe's own process is unaffected by programs that attack it", async () => {
  const rssBefore = process.memoryUsage().rss;
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
  assert.doesNotMatch(r.stdout, new RegExp(`killed (${process.pid}|${process.ppid}|1)\\b`));
  process.kill(process.pid, 0); // still alive: throws if not
  const growthMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  assert.ok(growthMb < 100, `Troupe grew by ${growthMb.toFixed(0)} MiB`);
});

test('filling the scratch disk fails inside the program (ENOSPC), not on the host', async () => {
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
    { limits: { diskMb: 4, wallMs: 5000 } },
  );
  assert.equal(r.reason, 'ok', r.stderr);
  assert.match(r.stdout, /^full (ENOSPC|EFBIG)$/m);
  assert.match(r.stdout, /^inodes ENOSPC True$/m);
});

test('the program sees only its own processes, not the init nor the host', async () => {
  const r = await py('import os\nprint(sorted(int(p) for p in os.listdir("/proc") if p.isdigit()), os.getpid(), os.getppid())');
  assert.equal(r.reason, 'ok', r.stderr);
  const [pids, pid, ppid] = r.stdout.trim().split(/ (?=\d)/);
  assert.equal(pids, `[${pid}]`, 'only itself');
  assert.equal(ppid, '1', 'its parent is the namespace init');
});

test('python runs are deterministic: string hashing is seeded, not random', async () => {
  const code = 'print(hash("troupe"), list({"a", "b", "c", "d"}))';
  const [a, b] = await Promise.all([py(code), py(code)]);
  assert.equal(a.reason, 'ok');
  assert.equal(a.stdout, b.stdout);
});

test('the concurrency limit queues programs beyond it', async () => {
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

test('bad requests are user errors, not sandbox runs', async () => {
  await assert.rejects(py('print(1)', { files: { '../x': 'y' } }), /not allowed/);
  await assert.rejects(sandbox.run({ language: 'ruby' as 'python', code: '' }), /unknown sandbox language 'ruby'/);
  assert.throws(() => new Sandbox({ concurrency: 0 }), /concurrency/);
  await assert.rejects(py('print(1)', { limits: { wallMs: -1 } }), /wallMs/);
});

test('a missing python3 is a sandbox error that names the command and the fix', async () => {
  const broken = new Sandbox({ python: 'no-such-python3' });
  await assert.rejects(broken.run({ language: 'python', code: 'print(1)' }), (error: Error & { category?: string }) => {
    assert.equal(error.category, 'sandbox');
    assert.match(error.message, /could not start 'no-such-python3'.*apt-get install -y python3/);
    return true;
  });
});
