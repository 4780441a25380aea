/**
 * The entry point for running model-written code: a queue in front of run-program.ts that
 * keeps at most `concurrency` programs running at once, and gives each running slot its own
 * unprivileged uid (so the per-uid process limit of one run never counts another's processes).
 */
import { TroupeError } from '../util/errors.js';
import { probeHost, type HostSetup, type ProbeOptions } from './probe-host.js';
import { runProgram } from './run-program.js';
import { DEFAULT_LIMITS, type RunRequest, type RunResult, type SandboxLimits } from './types.js';

export interface SandboxOptions extends ProbeOptions {
  /** Programs running at once; default 2 (the machine's cores are shared with training). */
  readonly concurrency?: number;
  /** Default limits of every run; a request may override single fields. */
  readonly limits?: Partial<SandboxLimits>;
}

/** Most slots one Sandbox hands out; each slot is one uid. */
const MAX_CONCURRENCY = 64;
/**
 * Sandbox uids: far above any real account, one block of 64 per Troupe process (by pid), so
 * two Troupe processes on one machine (parallel test files) do not share a process limit.
 */
function slotUid(slot: number): number {
  return 1_000_000_000 + (process.pid % 1_000_000) * MAX_CONCURRENCY + slot;
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
  private readonly freeSlots: number[];
  private readonly waiting: Array<(slot: number) => void> = [];

  constructor(options: SandboxOptions = {}) {
    const concurrency = options.concurrency ?? 2;
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
    this.freeSlots = Array.from({ length: concurrency }, (_, i) => concurrency - 1 - i);
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
    const slot = await this.acquire();
    try {
      return await runProgram(host, request, limits, slotUid(slot));
    } finally {
      this.release(slot);
    }
  }

  /** Programs waiting for a slot (for metrics). */
  get queued(): number {
    return this.waiting.length;
  }

  private acquire(): Promise<number> {
    const slot = this.freeSlots.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(slot: number): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.freeSlots.push(slot);
  }
}
