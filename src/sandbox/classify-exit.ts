/**
 * Turns the raw facts of a finished run into one `ExitReason` (see types.ts). Pure, so the
 * precedence rules are tested without starting processes.
 */
import type { ExitReason } from './types.js';

/** Raw facts gathered by run-program.ts. */
export interface RawExit {
  readonly exitCode: number | null;
  readonly signal: number | null;
  /** The init's wall-clock alarm fired, or Troupe's backstop timer did. */
  readonly timedOut: boolean;
  /** Troupe killed the run because an output stream went over its cap. */
  readonly outputExceeded: boolean;
  /** CPU ms used and the CPU limit in ms as the kernel enforces it (whole seconds). */
  readonly cpuMs: number;
  readonly cpuLimitMs: number;
  /** The last few KiB of stderr, where interpreters write their out-of-memory message. */
  readonly stderrTail: string;
}

const SIGKILL = 9;
const SIGXCPU = 24;

/**
 * What Python and node print when an allocation fails at the data-segment limit. Python:
 * `MemoryError`; node/V8: heap exhaustion, ArrayBuffer allocation failure, or a fatal OOM.
 */
const MEMORY_PATTERNS = [
  /^MemoryError\b/m,
  /\bMemoryError\s*$/,
  /JavaScript heap out of memory/,
  /Array buffer allocation failed/,
  /Fatal process out of memory|Fatal process OOM/,
  /Cannot allocate memory/,
  /std::bad_alloc/,
];

export function looksLikeOutOfMemory(stderrTail: string): boolean {
  return MEMORY_PATTERNS.some((re) => re.test(stderrTail));
}

/**
 * Precedence: Troupe's own kills first (output cap, wall clock), then the kernel's CPU limit
 * (SIGXCPU, or SIGKILL at the hard limit), then memory, then the plain exit status.
 */
export function classifyExit(raw: RawExit): ExitReason {
  if (raw.outputExceeded) return 'output-limit';
  if (raw.timedOut) return 'timeout';
  if (raw.signal === SIGXCPU) return 'timeout';
  if (raw.signal === SIGKILL && raw.cpuMs >= raw.cpuLimitMs) return 'timeout';
  if (raw.exitCode !== 0 && looksLikeOutOfMemory(raw.stderrTail)) return 'memory';
  if (raw.exitCode === 0) return 'ok';
  if (raw.exitCode !== null) return 'error';
  return 'killed';
}
