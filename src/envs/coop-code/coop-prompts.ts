/**
 * Prompts of the coop-code task. Each starts with the task id line used by the reference
 * policy. Turn 1 shows the problem; later turns add both agents' previous code and the
 * external transition's text (failing-test feedback, or an outside model's advice).
 */
import type { TeamOptions } from '../types.js';
import type { CoopCodeEnv } from './coop-env.js';
import type { TestOutcome } from './evaluate-coop.js';

/** The feedback transition: test results of a state, for the next turn's prompts. */
export function feedbackText(tests: TestOutcome, stoppedAt?: 'structure' | 'syntax'): string {
  if (stoppedAt === 'structure') return 'The main function was missing or had no return statement, so no test ran.';
  if (stoppedAt === 'syntax') return 'The combined code did not compile, so no test ran.';
  const lines = [`Tests passed: ${tests.passed}/${tests.total}.`];
  if (tests.failing.length > 0) lines.push('Failing tests:', ...tests.failing.slice(0, 5).map((a) => `  ${a}`));
  if (tests.error) lines.push(`Error: ${tests.error}`);
  return lines.join('\n');
}

function previous(env: CoopCodeEnv, compact: boolean): string[] {
  const lines: string[] = [];
  const code = (label: string, text: string | null) => {
    if (text === null) return;
    if (compact) lines.push(`${label} ${text.trimEnd()}`);
    else lines.push(`Previous ${label}:`, '```python', text.trimEnd() || '# (empty)', '```');
  };
  code('aux', env.aux);
  code('main', env.main);
  code('completion', env.completion);
  if (env.transitionText !== null) lines.push(compact ? `F ${env.transitionText.replace(/\n/g, ' | ')}` : `Feedback:\n${env.transitionText}`);
  if (env.notes.length > 0) lines.push(...env.notes.map((n) => (compact ? `N ${n}` : `Note: ${n}`)));
  return lines;
}

const INSTRUCTIONS: Record<string, (entry: string) => string> = {
  aux: () =>
    'You are the helper agent of a two-agent team writing Python. Write ONE helper function named `aux` that makes the function below easier to write. Your teammate writes that function and may call `aux(...)`. Reply with only the helper, in one ```python code block.',
  main: (entry) =>
    `You are the main agent of a two-agent team writing Python. Write the function \`${entry}\` below (signature as given). Your teammate writes a helper function \`aux\` that you may call; it will be defined next to your code. Reply with the complete function in one \`\`\`python code block.`,
  agent: () => 'Complete the Python function below. Reply with its body (or the whole function) in one ```python code block.',
};

export function coopPrompt(role: string, env: CoopCodeEnv, format: TeamOptions['format']): string {
  const head = `[task ${env.taskId}]`;
  if (format === 'compact') return [head, env.problem.prompt.trimEnd(), ...previous(env, true), `${role}:`].join('\n');
  const instructions = INSTRUCTIONS[role]!(env.problem.entryPoint);
  return [head, instructions, '', '```python', env.problem.prompt.trimEnd(), '```', ...(env.transitionText === null && env.aux === null && env.main === null && env.completion === null ? [] : ['', ...previous(env, false)])].join('\n');
}
