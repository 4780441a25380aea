/**
 * The entry point for running model-written code: a queue in front of run-program.ts that
 * keeps at most `concurrency` programs running at once, and gives each running program its
 * own unprivileged uid (so the per-uid process limit of one run never counts another's).
 */
import { TroupeError } from '../util/errors.js';
import { threadsFromEnv } from '../util/thread-count.js';
import { probeHost, type HostSetup, type ProbeOptions } from './probe-host.js';
import { runProgram } from './run-program.js';
import { DEFAULT_LIMITS, type RunRequest, type RunResult, type SandboxLimits } from './types.js';

export interface SandboxOptions extends ProbeOptions {
  /**
   * Programs running at once; default TROUPE_THREADS, else the cores this process may use
   * (at most MAX_CONCURRENCY). Results do not depend on it: each program runs alone in its
   * own sandbox and its result is keyed by what it ran, not by when it finished.
   */
  readonly concurrency?: number;
  /** Default limits of every run; a request may override single fields. */
  readonly limits?: Partial<SandboxLimits>;
}

/** Most programs one Sandbox runs at once. */
export const MAX_CONCURRENCY = 64;
/** Uids one Troupe process may use at once, across all its Sandbox objects. */
const UIDS_PER_PROCESS = 4096;
/**
 * Sandbox uids: far above any real account, one block per Troupe process (by pid), so two
 * Troupe processes on one machine (parallel test files) never share a uid and hence never
 * share a per-uid process limit. Every running program has a uid of its own.
 */
export const SANDBOX_UID_BASE = 1_000_000_000 + (process.pid % 500_000) * UIDS_PER_PROCESS;
const freeUids: number[] = [];
let nextUid = 0;

function takeUid(): number {
  const uid = freeUids.pop();
  if (uid !== undefined) return uid;
  if (nextUid >= UIDS_PER_PROCESS) {
    throw new TroupeError('sandbox', `more than ${UIDS_PER_PROCESS} sandboxed programs are running at once in this process; lower the concurrency.`);
  }
  return SANDBOX_UID_BASE + nextUid++;
}

/** True for a uid this process hands to sandboxed programs (for process-table checks). */
export function isSandboxUid(uid: number): boolean {
  return uid >= SANDBOX_UID_BASE && uid < SANDBOX_UID_BASE + UIDS_PER_PROCESS;
}

function checkLimits(limits: SandboxLimits): void {
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new TroupeError('config', `sandbox limit '${key}' must be a positive number, got ${String(value)}.`);
    }
  }
}

export class Sandbox {
  readonly concurrency: number;
  readonly limits: SandboxLimits;
  private readonly probeOptions: ProbeOptions;
  private host: HostSetup | undefined;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(options: SandboxOptions = {}) {
    const concurrency = options.concurrency ?? Math.min(MAX_CONCURRENCY, threadsFromEnv());
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
      throw new TroupeError(
        'config',
        `sandbox concurrency must be an integer from 1 to ${MAX_CONCURRENCY}, got ${String(concurrency)}.`,
      );
    }
    this.concurrency = concurrency;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    checkLimits(this.limits);
    this.probeOptions = options.python === undefined ? {} : { python: options.python };
  }

  /** Host facts, probed on first use (throws a `sandbox` TroupeError when the host cannot sandbox). */
  hostSetup(): HostSetup {
    this.host ??= probeHost(this.probeOptions);
    return this.host;
  }

  /** Runs one program when a slot is free. Never rejects for the program's own failures. */
  async run(request: RunRequest): Promise<RunResult> {
    const limits = { ...this.limits, ...request.limits };
    checkLimits(limits);
    const host = this.hostSetup();
    await this.acquire();
    const uid = takeUid();
    try {
      return await runProgram(host, request, limits, uid);
    } finally {
      freeUids.push(uid);
      this.release();
    }
  }

  /** Programs waiting for a slot (for metrics). */
  get queued(): number {
    return this.waiting.length;
  }

  /** Programs running now. */
  get active(): number {
    return this.running;
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    // The releasing run hands its place over directly, so `running` stays unchanged.
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
