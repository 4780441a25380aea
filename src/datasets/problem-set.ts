/**
 * Where a task's problems come from: a dataset file (`tasks.path`, and `tasks.eval_path` for
 * the eval split) or, when no file is given, a built-in synthetic generator (unbounded,
 * deterministic per seed, train and eval disjoint).
 *
 * A file given alone serves both splits: that is the benchmark case (`troupe eval` on all of
 * HumanEval). To train on a file and evaluate on held-out problems, give both paths.
 */
import type { Split } from '../envs/types.js';
import { TroupeError } from '../util/errors.js';

export interface ProblemSet<P> {
  /** Problems in the train file; undefined for a synthetic (unbounded) set. */
  readonly size?: number;
  get(index: number, split: Split): P;
}

export interface ProblemSetOptions<P> {
  readonly path?: string | undefined;
  readonly evalPath?: string | undefined;
  readonly read: (path: string) => P[];
  readonly synthetic: (split: Split, index: number) => P;
}

export function problemSet<P>(options: ProblemSetOptions<P>): ProblemSet<P> {
  if (options.path === undefined) {
    if (options.evalPath !== undefined) {
      throw new TroupeError('config', 'tasks.eval_path is set but tasks.path is not; give tasks.path (the train file) too, or drop eval_path');
    }
    return { get: (index, split) => options.synthetic(split, index) };
  }
  const train = options.read(options.path);
  const evalRows = options.evalPath === undefined ? train : options.read(options.evalPath);
  return {
    size: train.length,
    get(index, split) {
      const rows = split === 'train' ? train : evalRows;
      const path = split === 'train' ? options.path : (options.evalPath ?? options.path);
      const row = rows[index];
      if (!Number.isInteger(index) || index < 0 || row === undefined) {
        throw new TroupeError(
          'input',
          `task index ${index} is out of range: ${path} has ${rows.length} problems (indices 0-${rows.length - 1}); lower rollout.tasks to at most ${rows.length}`,
        );
      }
      return row;
    },
  };
}
