/**
 * Prompt text about tool programs, shared by the grid tasks and Sudoku: what the tool agent
 * is told about its program (natural tool prompt), and how its program and run look to the
 * plan agent.
 */
import type { SandboxLimits } from '../../sandbox/types.js';
import { TOOL_PROGRAM_LIMITS, type ProgramRecord } from './program-tool.js';

/** Characters of a program shown to the plan agent; longer programs are cut (and say so). */
const CODE_SHOWN = 4000;

/** The sandbox's terms, for the tool prompt: what the program can use and how long it may run. */
export function programTerms(limits: Partial<SandboxLimits> = TOOL_PROGRAM_LIMITS): string {
  const seconds = (limits.wallMs ?? 0) / 1000;
  return `The program runs in a sandbox with Python 3 and its standard library only; it gets no input, no files and no network, and it must finish within ${seconds} s.`;
}

/** The closing instruction of a tool prompt (the scripted player and real LLMs both follow it). */
export const PROGRAM_REPLY = 'Reply with the whole program in one ```python code block.';

/** The lines that show the plan agent the tool's program and what running it gave. */
export function programLines(record: ProgramRecord): string[] {
  const code = record.code.trimEnd();
  const shown = code.length <= CODE_SHOWN ? code : `${code.slice(0, CODE_SHOWN)}\n# ... (program cut here: ${code.length} characters in all)`;
  const lines = ['The tool agent wrote this program:', '```python', shown, '```'];
  const output = record.output === '' ? ['It printed nothing.'] : ['It printed:', '```', record.output, '```'];
  if (record.reason === 'ok') return [...lines, 'It ran to the end.', ...output];
  lines.push(`It did not finish normally (${record.reason}).`, ...output);
  if (record.stderr !== '') lines.push('Its error output ends with:', '```', record.stderr, '```');
  return lines;
}
