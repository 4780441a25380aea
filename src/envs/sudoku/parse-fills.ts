/**
 * Reads fills from model text, in the two prompt formats. Never throws: bad text is a
 * `{ ok: false, reason }` that the role penalises and records.
 *
 * - compact: the text before the first newline, fills as 3-digit tokens `RCD` (row, column,
 *   digit, 1-based) separated by spaces, e.g. `124 311`. Strict: any other token voids the
 *   action, because a tiny model learns the format fastest from an unambiguous signal.
 * - natural: tolerant of how LLMs write. Reads the text after the last `Answer:`, else the
 *   last code block, else all of it (so reasoning before the answer is ignored when marked),
 *   and takes every `(row, col, digit)` triple or `r1c2=4` / `R1C2: 4` reference, in order.
 */
import type { ParseResult } from '../types.js';
import type { Fill } from './apply-fills.js';

const COMPACT_FILL = /^(\d)(\d)(\d)$/;
const NATURAL_FILL = /\(\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*\)|\br\s*(-?\d+)\s*c\s*(-?\d+)\s*[=:]\s*(-?\d+)/gi;
const ANSWER_MARKER = /answer\s*:/gi;
const CODE_BLOCK = /```[^\n]*\n?([\s\S]*?)```/g;

/** The part of a natural answer that should hold the fills. */
function answerPart(text: string): string {
  let start = -1;
  for (const m of text.matchAll(ANSWER_MARKER)) start = (m.index ?? 0) + m[0].length;
  if (start >= 0) return text.slice(start);
  const blocks = [...text.matchAll(CODE_BLOCK)];
  return blocks.length > 0 ? (blocks[blocks.length - 1]?.[1] ?? '') : text;
}

function checkCount(fills: Fill[], maxFills: number): ParseResult<Fill[]> {
  if (fills.length === 0) return { ok: false, reason: 'no fills found' };
  if (fills.length > maxFills) {
    return { ok: false, reason: `too many fills: ${fills.length} > max_fills ${maxFills}` };
  }
  return { ok: true, action: fills };
}

export function parseCompactFills(text: string, maxFills: number): ParseResult<Fill[]> {
  const line = text.split('\n', 1)[0] ?? '';
  const fills: Fill[] = [];
  for (const token of line.trim().split(/\s+/).filter((t) => t !== '')) {
    const m = COMPACT_FILL.exec(token);
    if (!m) {
      const shown = token.length > 12 ? `${token.slice(0, 12)}...` : token;
      return { ok: false, reason: `bad fill "${shown}": expected row, column, digit as 3 digits like 124` };
    }
    fills.push({ row: Number(m[1]), col: Number(m[2]), digit: Number(m[3]) });
  }
  return checkCount(fills, maxFills);
}

export function parseNaturalFills(text: string, maxFills: number): ParseResult<Fill[]> {
  const fills: Fill[] = [];
  for (const m of answerPart(text).matchAll(NATURAL_FILL)) {
    const [row, col, digit] = m[1] !== undefined ? [m[1], m[2], m[3]] : [m[4], m[5], m[6]];
    fills.push({ row: Number(row), col: Number(col), digit: Number(digit) });
  }
  if (fills.length === 0) {
    return { ok: false, reason: 'no fills found: expected (row, column, digit) triples like (1, 2, 4)' };
  }
  return checkCount(fills, maxFills);
}
