/**
 * One error class for everything Troupe reports to a user. The category says which part of
 * the input or system is at fault; the message names the wrong value, what is allowed, and
 * the fix. Expected failures during rollouts (bad model output, failed tool runs) are NOT
 * thrown: they travel as data on samples (see rollout/types.ts).
 */
export type ErrorCategory =
  | 'config' // a config file or --set override is wrong
  | 'input' // a dataset line, CLI argument or HTTP request is wrong
  | 'checkpoint' // a model folder is missing or malformed
  | 'invariant' // Troupe broke one of its own promises (a bug: please report it)
  | 'engine' // the numeric engine cannot do what was asked (shape mismatch, out of memory)
  | 'io' // reading or writing files failed
  | 'policy' // a policy backend failed (server unreachable, bad response)
  | 'sandbox' // the code sandbox could not run at all
  | 'task'; // a user's task definition broke its contract (a role threw, a prompt is not deterministic)

/**
 * @example
 * ```ts
 * try {
 *   await train({ config: 'run.yaml' });
 * } catch (error) {
 *   if (error instanceof TroupeError) console.error(`${error.category} error: ${error.message}`);
 *   else throw error;
 * }
 * ```
 */
export class TroupeError extends Error {
  readonly category: ErrorCategory;

  constructor(category: ErrorCategory, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TroupeError';
    this.category = category;
  }
}

/** Throws an `invariant` error when `condition` is false: for promises Troupe makes to itself. */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new TroupeError('invariant', `internal invariant broken: ${message}`);
}

/** The `checkpoint` error for a model file that could not be opened or read, naming it. */
export function cannotReadFile(path: string, error: unknown): TroupeError {
  const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(error);
  return new TroupeError('checkpoint', `cannot read ${path}: ${reason}`, { cause: error });
}
