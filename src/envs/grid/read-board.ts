/**
 * Reads a grid prompt back (for the scripted player, which, like a model, sees only text):
 * the board rows, the answer format and the move cap. Inverse of move-prompt.ts.
 */
import { COMPACT_ANSWER_MARKER } from './move-prompt.js';
import type { PromptFormat } from './types.js';

/**
 * The first run of at least two consecutive lines made only of `alphabet` characters and all
 * of the same length, or undefined when the prompt holds no board.
 */
export function readBoardRows(prompt: string, alphabet: string): string[] | undefined {
  const isRow = (line: string): boolean => line.length > 0 && [...line].every((ch) => alphabet.includes(ch));
  const lines = prompt.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!isRow(lines[i]!)) continue;
    let end = i;
    while (end + 1 < lines.length && isRow(lines[end + 1]!) && lines[end + 1]!.length === lines[i]!.length) end++;
    if (end > i) return lines.slice(i, end + 1);
  }
  return undefined;
}

/** Compact prompts end with the `A:` line; everything else is natural. */
export function readPromptFormat(prompt: string): PromptFormat {
  const lines = prompt.trimEnd().split('\n');
  return lines[lines.length - 1] === COMPACT_ANSWER_MARKER ? 'compact' : 'natural';
}

/** The move cap stated in the prompt (`M20` in the compact header, "at most 20 moves"). */
export function readMaxMoves(prompt: string): number | undefined {
  const compact = /^\S+ \d+\/\d+ M(\d+)\b/m.exec(prompt);
  const natural = /at most (\d+) moves/.exec(prompt);
  const found = compact?.[1] ?? natural?.[1];
  return found === undefined ? undefined : Number(found);
}
