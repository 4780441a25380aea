/**
 * The code sandbox's vocabulary. Read this file first; docs/sandbox.md says what the
 * isolation guarantees and how it was checked.
 *
 * Model-written programs never run inside Troupe's own process (DESIGN.md invariant 6). A
 * `Sandbox` runs each program in a fresh Linux PID/mount/network/IPC/UTS namespace, as an
 * unprivileged uid, on a private size-capped tmpfs root that holds only read-only copies of
 * the interpreter's files and a writable `/box` (the working directory with the program and
 * its input files). Everything the program started is killed when it ends.
 *
 * ```ts
 * const sandbox = new Sandbox({ concurrency: 2 });
 * const result = await sandbox.run({
 *   language: 'python',
 *   code: 'print(int(input()) * 2)',
 *   stdin: '21\n',
 * });
 * // result.reason === 'ok', result.stdout === '42\n'
 * ```
 *
 * Expected failures of the program (syntax errors, wrong answers, timeouts, memory) are
 * *data* in `RunResult.reason`; only a sandbox that cannot run at all (no `unshare`, not
 * root, no python3) throws a `TroupeError` with category `sandbox`.
 */

/** Languages a program can be written in: Python 3 (the machine's `python3`) or JavaScript (node). */
export type Language = 'python' | 'javascript';

export const LANGUAGES: readonly Language[] = ['python', 'javascript'];

/**
 * Resource limits of one run. Every field is a hard limit; the program is killed when it
 * crosses one, and `RunResult.reason` says which.
 */
export interface SandboxLimits {
  /** Wall-clock time of the program from its start, in ms. Catches sleeping and blocked programs. */
  readonly wallMs: number;
  /**
   * CPU time of the program's main process, in ms. The kernel counts it in whole seconds
   * (RLIMIT_CPU), so it is rounded up to the next second; the wall limit is the precise one.
   */
  readonly cpuMs: number;
  /**
   * Data-segment size (heap and other private writable memory) of each process, in MiB. It is
   * a per-process limit: a program that forks can use up to `processes * memoryMb` in all.
   */
  readonly memoryMb: number;
  /** Bytes kept of stdout and of stderr each; a program that writes more is killed. */
  readonly outputBytes: number;
  /** Processes plus threads the sandbox uid may have at once (fork bombs stop here). */
  readonly processes: number;
  /** Size of the private tmpfs (the program, its files, /box and /tmp together), in MiB. */
  readonly diskMb: number;
}

/**
 * Defaults sized for small test programs (HumanEval-style functions, stdin/stdout puzzles).
 * 16 processes (node alone uses 7 threads) x 256 MiB bounds one run's memory at 4 GiB.
 */
export const DEFAULT_LIMITS: SandboxLimits = {
  wallMs: 5000,
  cpuMs: 5000,
  memoryMb: 256,
  outputBytes: 64 * 1024,
  processes: 16,
  diskMb: 32,
};

/** One program to run. */
export interface RunRequest {
  readonly language: Language;
  /** The program's source; written to /box/main.py or /box/main.js. */
  readonly code: string;
  /** Bytes given on standard input (then EOF). Empty when absent. */
  readonly stdin?: string;
  /** Extra files placed in /box beside the program, by relative path (no `..`, not absolute). */
  readonly files?: Readonly<Record<string, string>>;
  /** Overrides of the sandbox's default limits for this run. */
  readonly limits?: Partial<SandboxLimits>;
  /**
   * Give the program a side channel: file descriptor 3, write-only, whose bytes come back as
   * `RunResult.channel` (capped at `outputBytes`). Test harnesses report per-assert results
   * there so that the program's own prints cannot be mistaken for results by accident.
   */
  readonly channel?: boolean;
}

/**
 * Why the program stopped. A small, closed set:
 * - `ok`: exited with status 0.
 * - `error`: exited with a non-zero status (uncaught exception, syntax error, `exit(1)`).
 * - `timeout`: crossed the wall-clock or CPU-time limit.
 * - `memory`: an allocation failed at the memory limit (MemoryError, V8 heap/ArrayBuffer
 *   allocation failure); detected from the interpreter's last words on stderr.
 * - `output-limit`: wrote more than `outputBytes` to stdout or stderr (or the channel).
 * - `killed`: ended by a signal not explained above (segfault, abort, file-size limit).
 */
export type ExitReason = 'ok' | 'error' | 'timeout' | 'memory' | 'output-limit' | 'killed';

export const EXIT_REASONS: readonly ExitReason[] = [
  'ok',
  'error',
  'timeout',
  'memory',
  'output-limit',
  'killed',
];

/** What happened to one program. */
export interface RunResult {
  readonly reason: ExitReason;
  /** Exit status when the program exited normally, else null. */
  readonly exitCode: number | null;
  /** Number of the signal that ended the program (9 = SIGKILL, 24 = SIGXCPU), else null. */
  readonly signal: number | null;
  /** Standard output, cut to `outputBytes` (UTF-8 decoded). */
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  /** Side-channel bytes when `RunRequest.channel` was set, else empty. */
  readonly channel: string;
  /** Wall time of the program itself (not the sandbox setup), in ms. */
  readonly durationMs: number;
  /** CPU time (user + system) of the program's main process and the children it waited for. */
  readonly cpuMs: number;
  /** Peak resident memory of the program's main process, in KiB. */
  readonly maxRssKb: number;
  /**
   * Processes the program left running when it ended (background children, fork-bomb
   * remnants). All of them were killed; the count is here for logs and tests.
   */
  readonly survivorsKilled: number;
}

/** One stdin -> stdout test case of a code task. */
export interface StdioTestCase {
  readonly input: string;
  readonly output: string;
}

/** The outcome of one stdin -> stdout test case. */
export interface StdioTestResult {
  readonly passed: boolean;
  /** The expected output, as given. */
  readonly expected: string;
  readonly run: RunResult;
}

/** The outcome of a program over all its stdin -> stdout test cases. */
export interface StdioTestReport {
  readonly passed: number;
  readonly total: number;
  readonly tests: readonly StdioTestResult[];
}

/** A HumanEval-format problem plus a completion to check (fields as in HumanEval.jsonl). */
export interface HumanEvalProgram {
  /** The function signature and docstring (HumanEval `prompt`). */
  readonly prompt: string;
  /** The model's (or canonical) body that continues the prompt. */
  readonly completion: string;
  /** Source defining `check(candidate)` with the asserts (HumanEval `test`). */
  readonly test: string;
  /** Name of the function `check` is called with (HumanEval `entry_point`). */
  readonly entryPoint: string;
}

/**
 * The outcome of a HumanEval-style check, counted per assert statement.
 *
 * Each `assert` statement inside `check` (and the functions it defines) is one unit; a unit
 * passes when it ran at least once and every run of it held (an assert inside a loop must hold
 * on every iteration). Asserts whose test is a constant (`assert True, "..."`) are not counted.
 * A failing assert does not stop the check: the next one still runs, so `passed / total` is
 * the partial credit MAGRPO's reward uses. Asserts that never ran (an earlier statement raised,
 * or the run timed out) count as failed.
 */
export interface AssertReport {
  /** Assert units that held. */
  readonly passed: number;
  /** Assert units in `check`. */
  readonly total: number;
  /** The program plus `check(entry_point)` ran to the end and every unit held. */
  readonly allPassed: boolean;
  /**
   * Where it went wrong when it did: `definition` (prompt + completion did not run: syntax
   * error, exception at import), `check` (a statement of check other than an assert raised),
   * `run` (the process stopped early: see `run.reason`). Absent when nothing went wrong
   * beyond failed asserts.
   */
  readonly failure?: { readonly stage: 'definition' | 'check' | 'run'; readonly message: string };
  readonly run: RunResult;
}
