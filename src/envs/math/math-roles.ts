/**
 * Roles of the `math` task: `tool` writes a program that prints the answer (run in the
 * sandbox), `reasoning` answers step by step with the final answer in \boxed{}. From turn 2
 * both see both histories. Local rewards: 1 when the role's own answer is correct, else 0
 * (an unreadable answer, a failed program or a wrong answer earns 0 and is recorded as a
 * failure with its reason). The
 * single variant is the reasoning agent alone (`agent`). Prompts start with the task id line
 * (for the reference policy).
 */
import type { RunResult } from '../../sandbox/types.js';
import { extractCode } from '../code/extract-code.js';
import { pythonErrorSummary } from '../code/python-error.js';
import { sharedSandbox } from '../code/shared-sandbox.js';
import type { ParseResult, Role, StepOutcome, TeamOptions } from '../types.js';
import { answersEqual, extractBoxed } from './answer-check.js';
import type { MathEnv } from './math-env.js';

function history(env: MathEnv, compact: boolean): string[] {
  if (compact) {
    return [
      ...env.tool.map((t) => `T ${t.program.trim().replace(/\n/g, '; ')} => ${t.shown}`),
      ...env.reasoning.map((r) => `R ${r.answer ?? '(none)'}`),
    ];
  }
  const lines: string[] = [];
  env.tool.forEach((t, i) => lines.push(`Tool attempt ${i + 1}:`, '```python', t.program.trimEnd(), '```', `Output: ${t.shown}`));
  env.reasoning.forEach((r, i) => lines.push(`Reasoning attempt ${i + 1} (final answer ${r.answer ?? 'missing'}):`, r.excerpt));
  return lines;
}

function prompt(role: string, env: MathEnv, format: TeamOptions['format']): string {
  const head = `[task ${env.taskId}]`;
  const past = history(env, format === 'compact');
  if (format === 'compact') return [head, `Q ${env.problem.question}`, ...past, `${role}:`].join('\n');
  const instructions =
    role === 'tool'
      ? 'You are the tool agent of a two-agent team solving a math problem. Write a Python 3 program that computes the answer and prints only the final answer on its last line. Reply with the program in one ```python code block.'
      : `You are the ${role === 'agent' ? '' : 'reasoning agent of a two-agent team '}solving a math problem. Reason step by step, then give the final answer in \\boxed{}.`;
  const shared = past.length > 0 ? ['', 'Earlier attempts of the team (they may be wrong):', ...past] : [];
  return [head, instructions, '', 'Problem:', env.problem.question, ...shared].join('\n');
}

/** The last non-empty line of what the program printed. */
function lastLine(stdout: string): string | null {
  const lines = stdout.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.at(-1) ?? null;
}

export function createToolRole(format: TeamOptions['format']): Role<MathEnv, string> {
  return {
    name: 'tool',
    prompt: (env) => prompt('tool', env, format),
    parse(text): ParseResult<string> {
      const code = extractCode(text);
      return code === undefined ? { ok: false, reason: 'no program found in the answer' } : { ok: true, action: code };
    },
    async prepare(env, action) {
      if (!action.ok) return;
      const code = action.action;
      await env.memo.ensure(code, () => sharedSandbox().run({ language: 'python', code, limits: { wallMs: 5000, cpuMs: 5000 } }));
    },
    step(env, action): StepOutcome {
      if (!action.ok) {
        env.tool.push({ program: '', answer: null, shown: '(no program)' });
        return { local: 0, failure: `parse: ${action.reason}` };
      }
      const run: RunResult = env.memo.get(action.action, `${env.taskId} tool`);
      const answer = run.reason === 'ok' ? lastLine(run.stdout) : null;
      const shown = run.reason === 'ok' ? (answer ?? '(printed nothing)') : `(${run.reason}: ${run.stderr.trim().split('\n').at(-1) ?? ''})`;
      env.tool.push({ program: action.action, answer, shown: shown.slice(0, 200) });
      const correct = answer !== null && answersEqual(answer, env.problem.answer);
      const failure =
        answer === null
          ? run.reason === 'ok'
            ? 'program printed nothing'
            : `program ${run.reason}${run.reason === 'error' ? `: ${pythonErrorSummary(run.stderr)}` : ''}`
          : correct
            ? undefined
            : `wrong answer ${answer.slice(0, 60)}`;
      return { local: correct ? 1 : 0, info: { answer, reason: run.reason }, ...(failure ? { failure } : {}) };
    },
  };
}

export function createReasoningRole(name: string, format: TeamOptions['format']): Role<MathEnv, { answer: string; excerpt: string }> {
  return {
    name,
    prompt: (env) => prompt(name, env, format),
    parse(text) {
      const answer = extractBoxed(text);
      if (answer === undefined || answer.trim() === '') return { ok: false, reason: 'no final answer in \\boxed{}' };
      return { ok: true, action: { answer: answer.trim(), excerpt: text.trim().slice(-400) } };
    },
    step(env, action): StepOutcome {
      if (!action.ok) {
        env.reasoning.push({ answer: null, excerpt: '(no answer)' });
        return { local: 0, failure: `parse: ${action.reason}` };
      }
      env.reasoning.push(action.action);
      if (name === 'agent') env.answeredAlone = true;
      return {
        local: env.success ? 1 : 0,
        info: { answer: action.action.answer, agreed: env.agreed },
        ...(env.success ? {} : { failure: `wrong answer ${action.action.answer.slice(0, 60)}` }),
      };
    },
  };
}
