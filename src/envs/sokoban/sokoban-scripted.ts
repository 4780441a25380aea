import { cellAt, cellCount } from '../grid/grid-shape.js';
import { readBoardRows } from '../grid/read-board.js';
import { createScriptedMover, type ScriptedGame } from '../grid/scripted-mover.js';
import { moverProgram } from '../grid/scripted-program.js';
import { SOKOBAN_CELLS, SOKOBAN_ALPHABET } from './sokoban-presenter.js';
import { deadBox, isSolved, sokobanMove, type SokobanState } from './sokoban-move.js';
import { makeSokobanRoom, type SokobanRoom } from './sokoban-room.js';
import { solveSokoban } from './solve-sokoban.js';

/**
 * Python rules of Sokoban for the scripted tool program: a state is (player, sorted boxes);
 * `X` cells are the prompt's dead squares, so a box there can never reach a goal.
 */
const SOKOBAN_RULES = `
GOALS = frozenset(cells("G*+"))


def start_state():
    return (cells("P+")[0], tuple(sorted(cells("B*"))))


def move(state, d):
    (r, c), boxes = state
    dr, dc = DELTAS[d]
    nxt = (r + dr, c + dc)
    if not floor(*nxt):
        return None
    if nxt in boxes:
        beyond = (nxt[0] + dr, nxt[1] + dc)
        if not floor(*beyond) or beyond in boxes:
            return None
        boxes = tuple(sorted(beyond if box == nxt else box for box in boxes))
    return (nxt, boxes)


def solved(state):
    return all(box in GOALS for box in state[1])


def alive(state):
    return all(BOARD[r][c] != "X" for r, c in state[1])
`;

/** A Sokoban board as read back from a prompt. */
export interface SokobanView {
  readonly room: SokobanRoom;
  readonly state: SokobanState;
}

/** Reads the board of a Sokoban prompt (or any text holding board rows) back into a room and state. */
export function readSokoban(prompt: string): SokobanView | undefined {
  const rows = readBoardRows(prompt, SOKOBAN_ALPHABET);
  if (rows === undefined) return undefined;
  const shape = { height: rows.length, width: rows[0]!.length };
  const walls = new Uint8Array(cellCount(shape));
  const goals: number[] = [];
  const boxes: number[] = [];
  let player = -1;
  rows.forEach((row, r) =>
    [...row].forEach((ch, c) => {
      const cell = cellAt(shape, r, c);
      if (ch === SOKOBAN_CELLS.wall) walls[cell] = 1;
      if (ch === SOKOBAN_CELLS.goal || ch === SOKOBAN_CELLS.boxOnGoal || ch === SOKOBAN_CELLS.playerOnGoal) goals.push(cell);
      if (ch === SOKOBAN_CELLS.box || ch === SOKOBAN_CELLS.boxOnGoal) boxes.push(cell);
      if (ch === SOKOBAN_CELLS.player || ch === SOKOBAN_CELLS.playerOnGoal) player = cell;
    }),
  );
  if (player < 0 || boxes.length === 0 || boxes.length !== goals.length) return undefined;
  return { room: makeSokobanRoom(shape, walls, goals), state: { player, boxes } };
}

const sokobanGame: ScriptedGame<SokobanView> = {
  read: readSokoban,
  solve(view) {
    const solution = solveSokoban({ room: view.room, state: view.state });
    return solution.status === 'solved' ? solution.moves : undefined;
  },
  apply(view, dir) {
    const moved = sokobanMove(view.room, view.state, dir);
    return moved === undefined ? view : { room: view.room, state: moved.state };
  },
  solved: (view) => isSolved(view.room, view.state),
  lost: (view) => deadBox(view.room, view.state) !== undefined,
  program: (prompt, steps) =>
    moverProgram({ rows: readBoardRows(prompt, SOKOBAN_ALPHABET) ?? [], steps, rules: SOKOBAN_RULES }),
};

/** The model-free Sokoban player (`policy.kind: scripted`). */
export const sokobanScripted = createScriptedMover(sokobanGame);
