/**
 * Prompt text for the Sudoku roles. Prompts are pure functions of (env, role, turn), so clones
 * prompt identically and a GRPO group's prompts are byte-identical.
 *
 * compact (tiny character-level models; plan shown, tool and agent omit the T/S lines):
 *   sudoku plan t1/3      role and turn
 *   1.3.                  the board
 *   ..1.
 *   ....
 *   2..4
 *   T:124 231             the tool's proposal this turn (`-` none, `?` unparseable)
 *   S:vx e=7              its simulation: one verdict per fill (v ok, g given, r range,
 *   A:                    x conflict), empty cells left, ` win` if it would solve
 *
 * natural (real LLMs): the rules, the board, the fixed cells, what earlier turns did and why
 * rejected fills were rejected, and the answer format `Answer: (row, column, digit), ...`.
 */
import type { TurnContext } from '../types.js';
import type { FillResult, FillVerdict } from './apply-fills.js';
import type { SudokuEnv, SudokuRecord } from './sudoku-env.js';
import { type Unit, EMPTY, SUDOKU_SIZE } from './sudoku-grid.js';
import { renderCompactGrid, renderNaturalGrid } from './sudoku-render.js';

/** The line after which a compact-format model writes its answer. */
export const COMPACT_ANSWER_MARKER = 'A:';

const UNIT_NAMES: Record<Unit, string> = { row: 'row', col: 'column', box: 'box' };

const VERDICT_CODES: Record<FillVerdict, string> = { ok: 'v', given: 'g', range: 'r', conflict: 'x' };

/** The tool's proposal of this turn, if it has made one. */
export function currentProposal(env: SudokuEnv, turn: number): SudokuRecord | undefined {
  // A plain loop: Array.prototype.findLast is newer than the ES2022 library we target.
  for (let i = env.history.length - 1; i >= 0; i--) {
    const record = env.history[i];
    if (record?.kind === 'propose' && record.turn === turn) return record;
  }
  return undefined;
}

function compactFills(record: SudokuRecord): string {
  return record.fills.map((f) => `${f.row}${f.col}${f.digit}`).join(' ');
}

function compactSimulation(record: SudokuRecord): string {
  const verdicts = record.results.map((r) => VERDICT_CODES[r.verdict]).join('');
  return `${verdicts} e=${record.empty}${record.solved ? ' win' : ''}`;
}

export function compactPrompt(env: SudokuEnv, role: string, ctx: TurnContext): string {
  const lines = [`sudoku ${role} t${ctx.turn + 1}/${ctx.maxTurns}`, renderCompactGrid(env.cells)];
  if (role === 'plan') {
    const proposal = currentProposal(env, ctx.turn);
    if (proposal === undefined) lines.push('T:-', 'S:-');
    else if (proposal.failure !== undefined) lines.push('T:?', 'S:-');
    else lines.push(`T:${compactFills(proposal)}`, `S:${compactSimulation(proposal)}`);
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
  if (record.failure !== undefined) return `${head}: no usable answer (${record.failure}).`;
  const verb = record.kind === 'propose' ? 'proposed' : 'wrote';
  const tail = record.solved ? ' The puzzle was solved.' : ` ${record.empty} empty cells left.`;
  return `${head} ${verb}: ${record.results.map(describeFill).join('; ')}.${tail}`;
}

export function naturalPrompt(env: SudokuEnv, ctx: TurnContext): string {
  const fixed: string[] = [];
  env.puzzle.givens.forEach((v, i) => {
    if (v !== EMPTY) fixed.push(`(${Math.floor(i / SUDOKU_SIZE) + 1}, ${(i % SUDOKU_SIZE) + 1})`);
  });
  const parts = [
    `Solve this ${SUDOKU_SIZE}x${SUDOKU_SIZE} Sudoku. Fill every empty cell (shown as .) with a digit from 1 to ${SUDOKU_SIZE} so that every row, every column and every 2x2 box contains each digit exactly once. Rows and columns are numbered 1 to ${SUDOKU_SIZE} from the top left.`,
    `Turn ${ctx.turn + 1} of ${ctx.maxTurns}. Current grid:\n${renderNaturalGrid(env.cells)}`,
    `Given cells (row, column), which cannot change: ${fixed.join(', ')}. You may overwrite digits written in earlier turns.`,
  ];
  if (env.history.length > 0) parts.push(`Earlier turns:\n${env.history.map(describeRecord).join('\n')}`);
  parts.push(
    'A fill that targets a given cell or repeats a digit in its row, column or box is rejected. ' +
      'Write your fills after "Answer:" as (row, column, digit) triples, for example:\n' +
      'Answer: (1, 2, 4), (3, 1, 2)',
  );
  return parts.join('\n\n');
}
