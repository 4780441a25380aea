/**
 * HumanEval-format problems (the format of openai/human-eval's HumanEval.jsonl.gz and of
 * CoopHumanEval): a function signature with its docstring (`prompt`), a test source defining
 * `check(candidate)` with asserts, the function's name, and optionally the reference body.
 * HumanEval semantics: a completion is appended to `prompt`, then `test` runs and
 * `check(<entry_point>)` is called.
 */
import { readJsonl, stringField } from './read-jsonl.js';

export interface HumanEvalProblem {
  readonly taskId: string;
  readonly prompt: string;
  readonly test: string;
  readonly entryPoint: string;
  /** The body that completes `prompt` (absent in some datasets). */
  readonly canonicalSolution?: string;
}

/** The file's field names (snake_case, as in HumanEval.jsonl). */
export interface HumanEvalRow {
  task_id: string;
  prompt: string;
  test: string;
  entry_point: string;
  canonical_solution?: string;
}

export function readHumanEval(path: string): HumanEvalProblem[] {
  return readJsonl(path).map((row) => {
    const canonical = stringField(path, row, 'canonical_solution', { optional: true });
    return {
      taskId: stringField(path, row, 'task_id')!,
      prompt: stringField(path, row, 'prompt')!,
      test: stringField(path, row, 'test')!,
      entryPoint: stringField(path, row, 'entry_point')!,
      ...(canonical === undefined ? {} : { canonicalSolution: canonical }),
    };
  });
}

export function toHumanEvalRow(p: HumanEvalProblem): HumanEvalRow {
  return {
    task_id: p.taskId,
    prompt: p.prompt,
    test: p.test,
    entry_point: p.entryPoint,
    ...(p.canonicalSolution === undefined ? {} : { canonical_solution: p.canonicalSolution }),
  };
}
