/**
 * Task ids of the dataset tasks (`code/train/3`) and the id line every prompt of theirs starts
 * with (`[task code/train/3]`), which is how the reference policy, seeing only the prompt,
 * finds the problem.
 */
import type { Split } from '../types.js';

export function taskIdOf(task: string, split: Split, index: number): string {
  return `${task}/${split}/${index}`;
}

/** The (split, index) named by a prompt's id line for `task`, or undefined. */
export function readTaskIdLine(task: string, prompt: string): { split: Split; index: number } | undefined {
  const m = new RegExp(`\\[task ${task}/(train|eval)/(\\d+)\\]`).exec(prompt);
  return m ? { split: m[1] as Split, index: Number(m[2]) } : undefined;
}
