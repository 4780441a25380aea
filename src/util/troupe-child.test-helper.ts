// A `troupe` CLI child process a test talks to while it runs (a server, a run it kills), and
// one stopped at a test-only failpoint (util/test-failpoint.ts), for the tests that SIGKILL a
// process in the middle of a write, as a crash or power loss would.
import { spawn } from 'node:child_process';
import { cliPath } from '../train/tiny-run.test-helper.js';

export interface TroupeChild {
  /** Resolves with the first match of `pattern` in the child's stdout (rejects if it exits first). */
  stdout(pattern: RegExp): Promise<RegExpExecArray>;
  /** The same on stderr. */
  stderr(pattern: RegExp): Promise<RegExpExecArray>;
  /** Sends `signal` (default SIGKILL) and resolves with the signal that ended the child and all it wrote on stderr. */
  kill(signal?: NodeJS.Signals): Promise<{ signal: NodeJS.Signals | null; stderr: string }>;
}

/** Runs `troupe ...args` with `env` added to this process's environment. */
export function spawnTroupe(args: readonly string[], env: NodeJS.ProcessEnv = {}): TroupeChild {
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  const exited = new Promise<{ signal: NodeJS.Signals | null; code: number | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
  const watch = (read: () => string, pattern: RegExp, stream: NodeJS.ReadableStream): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(read());
        if (match) resolve(match);
        return match;
      };
      if (check()) return;
      stream.on('data', check);
      void exited.then(({ code, signal }) => check() ?? reject(new Error(`the child exited (code ${code}, signal ${signal}) before ${pattern}:\n${err}`)));
    });
  return {
    stdout: (pattern) => watch(() => out, pattern, child.stdout),
    stderr: (pattern) => watch(() => err, pattern, child.stderr),
    kill: async (signal = 'SIGKILL') => {
      child.kill(signal);
      const ended = await exited;
      return { signal: ended.signal, stderr: err };
    },
  };
}

/** Runs `troupe ...args` with TROUPE_TEST_FAILPOINT=`point` (NAME or NAME:TEXT); `reached` resolves with the failpoint's detail (the path being written) once the child is held there. */
export function spawnAtFailpoint(args: readonly string[], point: string): TroupeChild & { readonly reached: Promise<string> } {
  const child = spawnTroupe(args, { TROUPE_TEST_FAILPOINT: point });
  return { ...child, reached: child.stderr(/troupe test failpoint \S+ reached: (.+)\n/).then((m) => m[1]!) };
}

/** `troupe serve ...args` on a free port: the child and the URL it printed. */
export async function spawnServer(args: readonly string[]): Promise<{ server: TroupeChild; url: string }> {
  const server = spawnTroupe(['serve', ...args, '--port', '0']);
  const url = (await server.stdout(/^troupe serve(?: --tinker)?: (http:\/\/[^\s/]+)/m))[1]!;
  return { server, url };
}
