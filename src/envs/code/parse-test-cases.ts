/**
 * Reads the tester's test cases from model text, tolerantly:
 * - a JSON list `[{"input": "1 2\n", "output": "3\n"}, ...]`, in a fence or bare;
 * - the compact form `1 2=>3;4 5=>9` (one line: cases split by `;`, input and output by `=>`).
 * Inputs get a final newline when they lack one (programs read lines). At most 8 cases count.
 */
import type { StdioTestCase } from '../../sandbox/types.js';
import type { ParseResult } from '../types.js';

export const MAX_CASES = 8;

const withNewline = (s: string) => (s.endsWith('\n') ? s : `${s}\n`);

function fromJson(text: string): StdioTestCase[] | undefined {
  const start = text.indexOf('[');
  const end = text.lastIndexOf(']');
  if (start < 0 || end <= start) return undefined;
  try {
    const list = JSON.parse(text.slice(start, end + 1)) as unknown;
    if (!Array.isArray(list)) return undefined;
    const cases = list.filter(
      (c): c is { input: unknown; output: unknown } => c !== null && typeof c === 'object' && 'input' in c && 'output' in c,
    );
    return cases.map((c) => ({ input: withNewline(String(c.input)), output: String(c.output) }));
  } catch {
    return undefined;
  }
}

function fromCompact(text: string): StdioTestCase[] {
  return text
    .trim()
    .split(';')
    .map((part) => part.split('=>'))
    .filter((pair) => pair.length === 2 && pair[0]!.trim() !== '')
    .map(([input, output]) => ({ input: withNewline(input!.trim()), output: output!.trim() }));
}

export function parseTestCases(text: string): ParseResult<StdioTestCase[]> {
  const cases = (fromJson(text) ?? fromCompact(text)).slice(0, MAX_CASES);
  if (cases.length === 0) {
    return { ok: false, reason: `no test cases found (expected a JSON list of {"input", "output"} or "in=>out;in=>out"), got ${JSON.stringify(text.slice(0, 40))}` };
  }
  return { ok: true, action: cases };
}

/** The compact form of cases (the scripted and reference testers write it). */
export function formatCompactCases(cases: readonly StdioTestCase[]): string {
  return cases.map((c) => `${c.input.trim()}=>${c.output.trim()}`).join(';');
}
