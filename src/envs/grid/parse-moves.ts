/**
 * Reads a move list from model text. Never throws: bad text is a `{ ok: false, reason }` that
 * the role penalises and records (DESIGN.md invariant 5).
 *
 * - `compact`: the letters before the first newline, e.g. `RRDDL`; surrounding spaces are
 *   tolerated, nothing else (tiny models should learn the exact format).
 * - `natural`: what real LLMs write: `U, R, R, D`, `up right right down`, `[R, R]`, `RRDD`,
 *   inside a code block or after `Answer:`; otherwise the last non-empty line is read.
 */
import type { ParseResult } from '../types.js';
import type { Direction, PromptFormat } from './types.js';

const COMPACT_MOVES = /^[UDLR]+$/;
/** Separators and decoration between natural-format tokens. */
const NATURAL_SEPARATORS = /[\s,;:[\]()"'`.!>*\-]+/;
const NATURAL_WORDS: Readonly<Record<string, Direction>> = {
  u: 'U',
  up: 'U',
  d: 'D',
  down: 'D',
  l: 'L',
  left: 'L',
  r: 'R',
  right: 'R',
};
const ANSWER_MARKER = /answer\s*:/gi;
const CODE_BLOCK = /```[^\n]*\n?([\s\S]*?)```/g;

export function parseMoves(
  text: string,
  options: { format: PromptFormat; maxMoves: number },
): ParseResult<Direction[]> {
  const parsed = options.format === 'compact' ? parseCompact(text) : parseNatural(text);
  if (!parsed.ok) return parsed;
  if (parsed.action.length === 0) return { ok: false, reason: 'no moves: write at least one of U, D, L, R' };
  if (parsed.action.length > options.maxMoves) {
    return {
      ok: false,
      reason: `too many moves: ${parsed.action.length} > max ${options.maxMoves} per turn; send at most ${options.maxMoves}`,
    };
  }
  return parsed;
}

function parseCompact(text: string): ParseResult<Direction[]> {
  const line = (text.split('\n')[0] ?? '').trim();
  if (line === '') return { ok: false, reason: 'no moves: empty answer line' };
  if (!COMPACT_MOVES.test(line)) {
    const bad = [...line].findIndex((ch) => !'UDLR'.includes(ch));
    return {
      ok: false,
      reason: `unexpected character ${JSON.stringify(line[bad])} at position ${bad}: moves are the letters U, D, L, R`,
    };
  }
  return { ok: true, action: [...line] as Direction[] };
}

function parseNatural(text: string): ParseResult<Direction[]> {
  const tokens = answerPart(text)
    .split(NATURAL_SEPARATORS)
    .filter((token) => token !== '');
  const moves: Direction[] = [];
  for (const token of tokens) {
    const lower = token.toLowerCase();
    const word = NATURAL_WORDS[lower];
    if (word !== undefined) moves.push(word);
    else if (/^[udlr]+$/.test(lower)) moves.push(...([...lower.toUpperCase()] as Direction[]));
    else {
      return {
        ok: false,
        reason: `unexpected word ${JSON.stringify(token)}: write the moves as a list like: U, R, R, D`,
      };
    }
  }
  return { ok: true, action: moves };
}

/** The part of a natural answer that should hold the moves. */
function answerPart(text: string): string {
  const blocks = [...text.matchAll(CODE_BLOCK)];
  if (blocks.length > 0) return blocks[blocks.length - 1]![1] ?? '';
  const markers = [...text.matchAll(ANSWER_MARKER)];
  if (markers.length > 0) {
    const last = markers[markers.length - 1]!;
    const after = text.slice(last.index + last[0].length).trim();
    return after.split('\n')[0] ?? '';
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return lines[lines.length - 1] ?? '';
}

/**
 * Reads what a tool program printed as a move list, with the natural parser. Programs often
 * print one move a line: when every non-empty line is made of moves, the lines are read as one
 * list; otherwise (debug prints before the answer) the natural rule applies: the last line.
 */
export function parseMoveOutput(stdout: string, maxMoves: number): ParseResult<Direction[]> {
  const lines = stdout.split('\n').filter((line) => line.trim() !== '');
  const movesOnly = lines.length > 1 && lines.every((line) => parseMoves(line, { format: 'natural', maxMoves: Infinity }).ok);
  return parseMoves(movesOnly ? lines.join(' ') : stdout, { format: 'natural', maxMoves });
}

/** Writes moves the way `parseMoves` reads them: `RRD\n` (compact) or `R, R, D` (natural). */
export function formatMoves(moves: readonly Direction[], format: PromptFormat): string {
  return format === 'compact' ? `${moves.join('')}\n` : moves.join(', ');
}
