/**
 * Prompt text for the Sudoku roles, laid out like the grid tasks' prompts (src/envs/grid) so
 * one model can learn all of them. Prompts are pure functions of (env, role, turn): clones
 * prompt identically and a GRPO group's prompts are byte-identical.
 *
 * compact (tiny character-level models; only upper case, digits and a few symbols, all inside
 * the standard 64-token character vocabulary; `plan` shown, `tool` and `agent` omit TOOL/SIM):
 *
 *     PLAN 1/3 M16       role, turn/turns, most fills per answer
 *     EMPTY 12 14 21 ... only with `hint: empty`: the empty cells (row, column)
 *     CELL 23 ROW ...    only with `hint: cell`: the next cell and its units (cell-hint.ts)
 *     LAST 231 X         only with `history: last`: the fills played last and their verdicts
 *                        (`LAST -` none yet, `LAST ?` unparseable)
 *     1.3.               the board, `.` empty
 *     ..1.
 *     ....
 *     2..4
 *     TOOL 122 231       this turn's proposal as RCD triples (`TOOL -` none yet, `TOOL ?` unparseable)
 *     SIM VX E=7         one verdict per fill (V ok, G given, R out of range, X conflict),
 *     A:                 empty cells left, and ` WIN` if it would solve
 *
 * Unlike the grid tasks' `SIM` line, this one shows no reward: the shaping term counts digits
 * that match the hidden solution, so a reward would let the tool probe single digits and the
 * plan commit only the confirmed ones, an oracle the published task does not offer. The
 * verdicts are what checking the rules on a copy of the board reveals, nothing more.
 *
 * natural (real LLMs): the job, the rules, the board with its boxes, the fixed cells, what
 * earlier turns did and why rejected fills were rejected, the answer format, and a last line
 * `Answer:`. The `tool` also gets the rows as Python strings and is asked for a program that
 * prints its fills (run in the sandbox); `plan` sees that program, its output and the verdicts.
 */
import type { MoveHistory } from '../grid/last-move.js';
import { PROGRAM_REPLY, programLines, programTerms } from '../grid/program-prompt.js';
import type { TurnContext } from '../types.js';
import { cellHintLine } from './cell-hint.js';
import type { FillResult, FillVerdict } from './apply-fills.js';
import type { SudokuEnv, SudokuRecord } from './sudoku-env.js';
import { type Unit, EMPTY, SUDOKU_SIZE } from './sudoku-grid.js';
import { renderCompactGrid, renderNaturalGrid } from './sudoku-render.js';

/** The last line of a compact prompt: the model answers after it. */
export const COMPACT_ANSWER_MARKER = 'A:';
/** The last line of a natural prompt. */
export const NATURAL_ANSWER_MARKER = 'Answer:';

export interface SudokuPromptInput {
  readonly env: SudokuEnv;
  readonly role: string;
  readonly ctx: TurnContext;
  readonly maxFills: number;
  readonly hint?: SudokuHint;
  readonly history?: MoveHistory;
}

/**
 * Compact-prompt extras: `empty` lists the empty cells as `EMPTY 12 14` (row, column); `cell`
 * names the next cell to fill and restates its row, column and box (cell-hint.ts).
 */
export const SUDOKU_HINTS = ['none', 'empty', 'cell'] as const;
export type SudokuHint = (typeof SUDOKU_HINTS)[number];

/** `EMPTY 12 14 21`: the empty cells in reading order, or `EMPTY -` on a full board. */
export function emptyCellsLine(cells: readonly number[]): string {
  const names: string[] = [];
  cells.forEach((v, i) => {
    if (v === EMPTY) names.push(`${Math.floor(i / SUDOKU_SIZE) + 1}${(i % SUDOKU_SIZE) + 1}`);
  });
  return `EMPTY ${names.length === 0 ? '-' : names.join(' ')}`;
}

/**
 * Compact-prompt memory (`history: last`, the grid tasks' `MoveHistory` option): `LAST 231 X`
 * for the latest committed fills and their verdicts, `LAST ?` if that answer was unusable,
 * `LAST -` before any. A model that sees the same board again then knows which digit was just
 * rejected there (the natural format already tells every earlier turn). It is the game's own
 * record, nothing from the solution.
 */
export function lastCommitLine(env: SudokuEnv): string {
  for (let i = env.history.length - 1; i >= 0; i--) {
    const record = env.history[i];
    if (record === undefined || record.kind !== 'commit') continue;
    if (record.failure !== undefined) return 'LAST ?';
    return `LAST ${fillsText(record)} ${verdictsText(record)}`;
  }
  return 'LAST -';
}

function fillsText(record: SudokuRecord): string {
  return record.fills.map((f) => `${f.row}${f.col}${f.digit}`).join(' ');
}

function verdictsText(record: SudokuRecord): string {
  return record.results.map((r) => VERDICT_CODES[r.verdict]).join('');
}

const VERDICT_CODES: Record<FillVerdict, string> = { ok: 'V', given: 'G', range: 'R', conflict: 'X' };
const UNIT_NAMES: Record<Unit, string> = { row: 'row', col: 'column', box: 'box' };
const NATURAL_ROLE_JOBS: Readonly<Record<string, string>> = {
  agent: 'You are the agent. The fills you write are played on the board.',
  tool: 'You are the tool agent of a two-agent team. Write a Python 3 program that prints fills for the board below. Its fills are checked on a copy of the board and shown, with your program and its output, to the plan agent, who writes the fills that are really played.',
  plan: 'You are the plan agent of a two-agent team. The tool agent wrote a program that prints fills, and they were checked on a copy of the board. Write the fills that are really played.',
};

/** The tool's proposal of this turn, if it has made one (the latest when there are several). */
export function currentProposal(env: SudokuEnv, turn: number): SudokuRecord | undefined {
  for (let i = env.history.length - 1; i >= 0; i--) {
    const record = env.history[i];
    if (record === undefined || record.turn !== turn) return undefined;
    if (record.kind === 'proposal') return record;
  }
  return undefined;
}

export function compactPrompt(input: SudokuPromptInput): string {
  const { env, role, ctx, maxFills } = input;
  const lines = [`${role.toUpperCase()} ${ctx.turn + 1}/${ctx.maxTurns} M${maxFills}`];
  if (input.hint === 'empty') lines.push(emptyCellsLine(env.cells));
  if (input.hint === 'cell') lines.push(cellHintLine(env.cells));
  if (input.history === 'last') lines.push(lastCommitLine(env));
  lines.push(renderCompactGrid(env.cells));
  if (role === 'plan') {
    const proposal = currentProposal(env, ctx.turn);
    if (proposal === undefined) lines.push('TOOL -');
    else if (proposal.failure !== undefined) lines.push('TOOL ?');
    else {
      lines.push(`TOOL ${fillsText(proposal)}`, `SIM ${verdictsText(proposal)} E=${proposal.empty}${proposal.solved ? ' WIN' : ''}`);
    }
  }
  lines.push(COMPACT_ANSWER_MARKER);
  return lines.join('\n');
}

function describeFill(result: FillResult): string {
  const { row, col, digit } = result.fill;
  const fill = `(${row}, ${col}, ${digit})`;
  switch (result.verdict) {
    case 'ok':
      return `${fill} applied`;
    case 'given':
      return `${fill} rejected: that cell is given and cannot change`;
    case 'range':
      return `${fill} rejected: row, column and digit must each be 1 to ${SUDOKU_SIZE}`;
    case 'conflict':
      return `${fill} rejected: ${digit} is already in its ${(result.units ?? []).map((u) => UNIT_NAMES[u]).join(' and ')}`;
  }
}

function describeRecord(record: SudokuRecord): string {
  const head = `Turn ${record.turn + 1}, ${record.role}`;
  if (record.failure !== undefined) return `${head}: an answer that could not be used (${record.failure}).`;
  const verb = record.kind === 'proposal' ? 'proposed' : 'wrote';
  const tail = record.solved ? ' The puzzle was solved.' : ` ${record.empty} empty cells left.`;
  return `${head} ${verb}: ${record.results.map(describeFill).join('; ')}.${tail}`;
}

/** `["1.3.", "..1.", ...]`: the rows as a Python list a program can copy. */
function pythonRows(cells: readonly number[]): string {
  const rows: string[] = [];
  for (let r = 0; r < SUDOKU_SIZE; r++) {
    rows.push(JSON.stringify(cells.slice(r * SUDOKU_SIZE, (r + 1) * SUDOKU_SIZE).map((v) => (v === EMPTY ? '.' : String(v))).join('')));
  }
  return `[${rows.join(', ')}]`;
}

export function naturalPrompt(input: SudokuPromptInput): string {
  const { env, role, ctx, maxFills } = input;
  const fixed: string[] = [];
  env.puzzle.givens.forEach((v, i) => {
    if (v !== EMPTY) fixed.push(`(${Math.floor(i / SUDOKU_SIZE) + 1}, ${(i % SUDOKU_SIZE) + 1})`);
  });
  const lines = [
    NATURAL_ROLE_JOBS[role] ?? `You are the ${role} agent.`,
    `Solve this ${SUDOKU_SIZE}x${SUDOKU_SIZE} Sudoku: fill every empty cell (shown as .) with a digit from 1 to ${SUDOKU_SIZE} so that every row, every column and every 2x2 box holds each digit exactly once. Rows and columns are numbered 1 to ${SUDOKU_SIZE} from the top left.`,
    '',
    `Turn ${ctx.turn + 1} of ${ctx.maxTurns}. The board now:`,
    '',
    renderNaturalGrid(env.cells),
    '',
    `Given cells (row, column), which cannot change: ${fixed.join(', ')}. Digits written in earlier turns may be overwritten.`,
  ];
  if (role === 'tool') lines.push(`The same board as Python strings, row 1 first, . for empty: ${pythonRows(env.cells)}`);
  if (env.history.length > 0) lines.push('Earlier turns:', ...env.history.map(describeRecord));
  const program = role === 'plan' ? currentProposal(env, ctx.turn)?.program : undefined;
  if (program !== undefined) lines.push(...programLines(program));
  lines.push('A fill that targets a given cell or repeats a digit in its row, column or box is rejected.');
  if (role === 'tool') {
    lines.push(
      `${programTerms()} A backtracking search over the board, copied into the program, solves a 4x4 Sudoku at once.`,
      `The program prints at most ${maxFills} fills, one (row, column, digit) triple a line, like: (1, 2, 4)`,
      PROGRAM_REPLY,
    );
  } else {
    lines.push(`Write at most ${maxFills} fills as (row, column, digit) triples, like: (1, 2, 4), (3, 1, 2)`);
  }
  lines.push(NATURAL_ANSWER_MARKER);
  return lines.join('\n');
}
