/**
 * Prompts of the `code` task. Every prompt starts with the task id line (`[task ...]`), which
 * the reference policy uses to find the dataset's solution; models can ignore it.
 * From turn 2 both roles see the other's latest work and the mismatches between the tester's
 * cases and the coder's program (never the hidden tests).
 */
import type { TeamOptions } from '../types.js';
import type { CodeEnv, Mismatch } from './code-env.js';

const show = (s: string) => JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}...` : s);

function mismatchLines(env: CodeEnv, compact: boolean): string[] {
  if (env.code === null || env.tests === null) return [];
  if (env.mismatches.length === 0) return [compact ? 'M none' : 'The program passes every one of the tester\'s cases.'];
  return env.mismatches.map((m: Mismatch, i) =>
    compact
      ? `M ${m.input.trim()}|${m.expected.trim()}|${m.actual.trim()}`
      : `Mismatch ${i + 1}: input ${show(m.input)}, the tester expects ${show(m.expected)}, the program gave ${show(m.actual)}`,
  );
}

export function coderPrompt(env: CodeEnv, format: TeamOptions['format'], alone: boolean): string {
  const head = `[task ${env.taskId}]`;
  if (format === 'compact') {
    const lines = [head, `Q ${env.problem.question}`];
    if (env.code !== null) lines.push(`P ${env.code.trimEnd()}`);
    if (env.tests !== null) lines.push(...mismatchLines(env, true));
    lines.push(...env.notes.map((n) => `N ${n}`), 'C:');
    return lines.join('\n');
  }
  const lines = [
    head,
    alone
      ? 'You are a programmer solving a competitive-programming problem.'
      : 'You are the coder of a two-agent team (a coder and a tester) solving a competitive-programming problem.',
    '',
    'Problem:',
    env.problem.question,
    '',
    'Write a complete Python 3 program that reads standard input and prints the answer to standard output. Reply with the program in one ```python code block.',
  ];
  if (env.code !== null) lines.push('', 'Your previous program:', '```python', env.code.trimEnd(), '```');
  if (env.tests !== null && env.code !== null) {
    lines.push('', "The tester's test cases against your program:", ...mismatchLines(env, false));
    lines.push('Fix the program where a mismatch shows a bug (the tester can be wrong too).');
  }
  if (env.notes.length > 0) lines.push('', 'Notes:', ...env.notes);
  return lines.join('\n');
}

export function testerPrompt(env: CodeEnv, format: TeamOptions['format']): string {
  const head = `[task ${env.taskId}]`;
  const own = env.tests === null ? [] : env.tests;
  if (format === 'compact') {
    const lines = [head, `Q ${env.problem.question}`];
    if (env.code !== null) lines.push(`P ${env.code.trimEnd()}`);
    if (env.tests !== null) lines.push(`T ${own.map((c) => `${c.input.trim()}=>${c.output.trim()}`).join(';')}`, ...mismatchLines(env, true));
    lines.push(...env.notes.map((n) => `N ${n}`), 'T:');
    return lines.join('\n');
  }
  const lines = [
    head,
    'You are the tester of a two-agent team (a coder and a tester) solving a competitive-programming problem.',
    '',
    'Problem:',
    env.problem.question,
    '',
    'Write 3 to 5 test cases: inputs and the exact expected outputs of a correct program. Reply with a JSON list in one ```json code block, e.g.',
    '```json',
    '[{"input": "1 2\\n", "output": "3\\n"}]',
    '```',
  ];
  if (env.code !== null) lines.push('', "The coder's program:", '```python', env.code.trimEnd(), '```');
  if (env.tests !== null) {
    lines.push('', 'Your previous test cases:', '```json', JSON.stringify(own), '```', ...mismatchLines(env, false));
    lines.push('Correct any test case whose expected output is wrong; keep the ones that are right.');
  }
  if (env.notes.length > 0) lines.push('', 'Notes:', ...env.notes);
  return lines.join('\n');
}
