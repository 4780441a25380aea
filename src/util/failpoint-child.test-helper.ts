// A `troupe` CLI child process stopped at a test-only failpoint (util/test-failpoint.ts), for
// the tests that SIGKILL a process in the middle of a write, as a crash or power loss would.
import { spawn } from 'node:child_process';
import { cliPath } from '../train/tiny-run.test-helper.js';

export interface FailpointChild {
  /** Resolves with the first match of `pattern` in the child's stdout (rejects if it exits first). */
  stdout(pattern: RegExp): Promise<RegExpExecArray>;
  /** Resolves with the failpoint's detail (the path being written) once the child is held there. */
  readonly reached: Promise<string>;
  /** SIGKILLs the child and resolves with the signal that ended it and everything it wrote on stderr. */
  kill(): Promise<{ signal: NodeJS.Signals | null; stderr: string }>;
}

/** Runs `troupe ...args` with TROUPE_TEST_FAILPOINT=`point` (NAME or NAME:TEXT). */
export function spawnAtFailpoint(args: readonly string[], point: string): FailpointChild {
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TROUPE_TEST_FAILPOINT: point } });
  let out = '';
  let err = '';
  const exited = new Promise<{ signal: NodeJS.Signals | null; code: number | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
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
  child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
  return {
    stdout: (pattern) => watch(() => out, pattern, child.stdout),
    reached: watch(() => err, /troupe test failpoint \S+ reached: (.+)\n/, child.stderr).then((m) => m[1]!),
    kill: async () => {
      child.kill('SIGKILL');
      const { signal } = await exited;
      return { signal, stderr: err };
    },
  };
}
