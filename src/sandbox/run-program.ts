/**
 * Runs one program in a fresh sandbox (no queueing: sandbox.ts adds the concurrency limit).
 *
 * Process tree: Troupe -> `unshare` (new mount/net/IPC/UTS namespaces, and a new PID
 * namespace for its children; without root, first a user namespace that maps only its uid 0
 * to Troupe's user) exec'ing stage 0 -> init (PID 1, trusted Python from
 * init-script.ts) -> the program as the sandbox uid. Killing stage 0 SIGKILLs the init
 * (PDEATHSIG), and the kernel then kills every process left in the PID namespace, so the
 * backstop and output-cap kills never leave survivors either.
 *
 * The result is ready when every pipe has ended: stage 0 closes its copies at once, and the
 * init reports only after it has reaped every process of the namespace. Troupe does not wait
 * for stage 0 to exit, which happens after the kernel has torn the namespaces down.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import type { Readable } from 'node:stream';
import { TroupeError } from '../util/errors.js';
import { CappedOutput } from './capped-output.js';
import { classifyExit } from './classify-exit.js';
import { INIT_SCRIPT } from './init-script.js';
import { toPythonLiteral } from './to-python-literal.js';
import type { HostSetup } from './probe-host.js';
import type { Language, RunRequest, RunResult, SandboxLimits } from './types.js';
import { LANGUAGES } from './types.js';

/** What the init process reads (its one argument, as a Python literal). */
interface InitConfig {
  root: string;
  input: string;
  tmpfsBytes: number;
  tmpfsInodes: number;
  binds: readonly string[];
  symlinks: ReadonlyArray<readonly [string, string]>;
  devices: readonly string[];
  uid: number;
  gid: number;
  /** In a user namespace of its own (HostSetup.rootless): keep uid 0 there and drop every capability. */
  rootless: boolean;
  rlimits: Record<string, number | [number, number]>;
  argv: string[];
  /** Path of the Python program to run in the forked init, or null to exec `argv`. */
  pythonMain: string | null;
  env: Record<string, string>;
  wallMs: number;
  channelFd: number | null;
}

/** The one JSON line the init writes on fd 3. */
interface InitReport {
  setupError?: string;
  exitCode: number | null;
  signal: number | null;
  timedOut: boolean;
  cpuMs: number;
  maxRssKb: number;
  durationMs: number;
  survivors: number;
}

const MIB = 1024 * 1024;
/** Time allowed for namespace and mount setup before Troupe kills the run itself. */
const BACKSTOP_GRACE_MS = 5000;

/** Files and folders the private tmpfs may hold: plenty for a program, few enough to be harmless. */
const TMPFS_INODES = 16_384;

const SOURCE_FILE: Record<Language, string> = { python: 'main.py', javascript: 'main.js' };

/** The program's command line; Python programs run inside the forked init instead (see init-script.ts). */
function programArgv(language: Language, host: HostSetup, limits: SandboxLimits): string[] {
  switch (language) {
    case 'python':
      return [];
    case 'javascript':
      // V8's own heap cap below the data limit, so heap exhaustion reports itself clearly.
      return [host.node, `--max-old-space-size=${Math.max(16, limits.memoryMb - 32)}`, `/box/${SOURCE_FILE.javascript}`];
  }
}

function checkRequest(request: RunRequest): void {
  if (!LANGUAGES.includes(request.language)) {
    throw new TroupeError('input', `unknown sandbox language '${String(request.language)}'; use one of: ${LANGUAGES.join(', ')}.`);
  }
  for (const name of Object.keys(request.files ?? {})) {
    const clean = normalize(name);
    if (name.startsWith('/') || clean.startsWith('..') || clean === '.' || clean === SOURCE_FILE[request.language]) {
      throw new TroupeError(
        'input',
        `sandbox file name '${name}' is not allowed: give a relative path inside /box without '..', other than ${SOURCE_FILE[request.language]}.`,
      );
    }
  }
}

function readInto(stream: Readable | null, out: CappedOutput, onExceeded: () => void): void {
  stream?.on('data', (chunk: Buffer) => {
    if (out.push(chunk)) onExceeded();
  });
}

/** Runs `request` as `uid` with fully resolved `limits`. Resolves when every process is gone. */
export async function runProgram(
  host: HostSetup,
  request: RunRequest,
  limits: SandboxLimits,
  uid: number,
): Promise<RunResult> {
  checkRequest(request);
  const work = mkdtempSync(join(tmpdir(), 'troupe-sandbox-'));
  try {
    const input = join(work, 'input');
    mkdirSync(input);
    mkdirSync(join(work, 'root'));
    writeFileSync(join(input, SOURCE_FILE[request.language]), request.code);
    for (const [name, content] of Object.entries(request.files ?? {})) {
      mkdirSync(dirname(join(input, name)), { recursive: true });
      writeFileSync(join(input, name), content);
    }
    const cpuSeconds = Math.max(1, Math.ceil(limits.cpuMs / 1000));
    const config: InitConfig = {
      root: join(work, 'root'),
      input,
      tmpfsBytes: limits.diskMb * MIB,
      tmpfsInodes: TMPFS_INODES,
      binds: host.binds,
      symlinks: host.symlinks,
      devices: host.devices,
      // Rootless, only uid 0 of the namespace exists (mapped to the unprivileged user outside).
      uid: host.rootless ? 0 : uid,
      gid: host.rootless ? 0 : uid,
      rootless: host.rootless,
      rlimits: {
        RLIMIT_CPU: [cpuSeconds, cpuSeconds + 1],
        RLIMIT_DATA: limits.memoryMb * MIB,
        RLIMIT_NPROC: limits.processes,
        RLIMIT_FSIZE: limits.diskMb * MIB,
        RLIMIT_NOFILE: 256,
        RLIMIT_CORE: 0,
      },
      argv: programArgv(request.language, host, limits),
      pythonMain: request.language === 'python' ? `/box/${SOURCE_FILE.python}` : null,
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: '/box',
        TMPDIR: '/tmp',
        LANG: 'C.UTF-8',
        PYTHONHASHSEED: '0',
        PYTHONDONTWRITEBYTECODE: '1',
      },
      wallMs: limits.wallMs,
      channelFd: request.channel ? 4 : null,
    };
    return await execute(host, config, request, limits, cpuSeconds * 1000);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function execute(
  host: HostSetup,
  config: InitConfig,
  request: RunRequest,
  limits: SandboxLimits,
  cpuLimitMs: number,
): Promise<RunResult> {
  // Python programs run in the init's interpreter, so its flags are theirs: -S skips `site`
  // (site-packages and .pth hooks, 50 ms of start-up on some machines, nothing a standard-
  // library program needs), -B writes no bytecode, and PYTHONHASHSEED=0 makes str hashing
  // (set and dict-of-str iteration order) the same on every run. No -I: it would ignore
  // PYTHONHASHSEED; the init drops the current directory from sys.path itself.
  const args = [...(host.rootless ? ['--user', '--map-root-user'] : []), '--mount', '--pid', '--net', '--ipc', '--uts', '--'];
  args.push(host.python, '-S', '-B', '-c', INIT_SCRIPT, toPythonLiteral(config));
  const child = spawn(host.unshare, args, {
    stdio: ['pipe', 'pipe', 'pipe', 'pipe', request.channel ? 'pipe' : 'ignore'],
    env: { PYTHONHASHSEED: '0' },
    cwd: dirname(config.root),
  });
  const stdout = new CappedOutput(limits.outputBytes);
  const stderr = new CappedOutput(limits.outputBytes);
  const channel = new CappedOutput(limits.outputBytes);
  const report = new CappedOutput(64 * 1024);
  let outputExceeded = false;
  let backstopFired = false;
  const killAll = (): void => {
    child.kill('SIGKILL');
  };
  const onExceeded = (): void => {
    outputExceeded = true;
    killAll();
  };
  const streams = [child.stdout, child.stderr, child.stdio[3]] as Readable[];
  readInto(child.stdout, stdout, onExceeded);
  readInto(child.stderr, stderr, onExceeded);
  readInto(child.stdio[3] as Readable, report, () => undefined);
  if (request.channel) {
    readInto(child.stdio[4] as Readable, channel, onExceeded);
    streams.push(child.stdio[4] as Readable);
  }
  child.stdin?.on('error', () => undefined); // the program may exit without reading stdin
  child.stdin?.end(request.stdin ?? '');
  const backstop = setTimeout(() => {
    backstopFired = true;
    killAll();
  }, limits.wallMs + BACKSTOP_GRACE_MS);
  const started = performance.now();

  return new Promise<RunResult>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(backstop);
      fn();
    };
    child.on('error', (cause) => {
      settle(() =>
        reject(new TroupeError('sandbox', `could not start '${host.unshare}': ${cause.message}. Install util-linux.`, { cause })),
      );
    });
    let open = streams.length;
    for (const stream of streams) {
      stream.on('close', () => {
        open -= 1;
        if (open === 0) settle(() => finish());
      });
    }
    const finish = (): void => {
      const line = report.text().trim().split('\n').pop() ?? '';
      let raw: InitReport | undefined;
      try {
        raw = line ? (JSON.parse(line) as InitReport) : undefined;
      } catch {
        raw = undefined;
      }
      if (raw?.setupError !== undefined) {
        reject(
          new TroupeError(
            'sandbox',
            `the sandbox could not be set up (${raw.setupError}). The sandbox needs Linux namespaces (unshare --mount --pid --net, as root or in a user namespace); see docs/sandbox.md.`,
          ),
        );
        return;
      }
      if (!raw && !outputExceeded && !backstopFired) {
        reject(
          new TroupeError(
            'sandbox',
            `the sandbox ended without a report (stderr: ${stderr.tail().slice(-500) || 'empty'}). Check that 'unshare ${host.rootless ? '--user --map-root-user ' : ''}--mount --pid --net --fork true' works here; see docs/sandbox.md.`,
          ),
        );
        return;
      }
      const exitCode = raw?.exitCode ?? null;
      const signal = raw ? raw.signal : 9;
      const cpuMs = raw?.cpuMs ?? 0;
      const reason = classifyExit({
        exitCode,
        signal,
        timedOut: (raw?.timedOut ?? false) || backstopFired,
        outputExceeded,
        cpuMs,
        cpuLimitMs,
        stderrTail: stderr.tail(),
      });
      resolve({
        reason,
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.exceeded,
        stderrTruncated: stderr.exceeded,
        channel: channel.text(),
        durationMs: raw?.durationMs ?? Math.round(performance.now() - started),
        cpuMs,
        maxRssKb: raw?.maxRssKb ?? 0,
        survivorsKilled: raw?.survivors ?? 0,
      });
    };
  });
}
