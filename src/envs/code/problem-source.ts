/**
 * The TaskSource of a dataset task (code, coop-code, math) over its problem set: env `index`
 * of a split gets that split's problem and the id `<task>/<split>/<index>`; the source is
 * finite when the problems come from a file and unbounded for a synthetic set.
 */
import type { ProblemSet } from '../../datasets/problem-set.js';
import type { Env, TaskSource } from '../types.js';
import { taskIdOf } from './task-id.js';

export function problemSource<P, E extends Env>(options: {
  readonly task: string;
  readonly set: ProblemSet<P>;
  readonly make: (problem: P, taskId: string) => E;
}): TaskSource<E> {
  const { task, set, make } = options;
  return {
    ...(set.size === undefined ? {} : { size: set.size }),
    make: (index, split) => make(set.get(index, split), taskIdOf(task, split, index)),
  };
}
