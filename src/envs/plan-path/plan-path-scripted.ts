import { cellAt, neighbor, type GridShape } from '../grid/grid-shape.js';
import { readBoardRows } from '../grid/read-board.js';
import { createScriptedMover, type ScriptedGame } from '../grid/scripted-mover.js';
import { moverProgram } from '../grid/scripted-program.js';
import { PLAN_PATH_ALPHABET, PLAN_PATH_CELLS } from './plan-path-presenter.js';
import { solvePlanPath } from './solve-plan-path.js';

/** Python rules of Plan-Path for the scripted tool program (states are (row, column) cells). */
const PLAN_PATH_RULES = `
GOAL = cells("G")[0]


def start_state():
    return cells("P")[0]


def move(pos, d):
    r, c = pos[0] + DELTAS[d][0], pos[1] + DELTAS[d][1]
    return (r, c) if floor(r, c) else None


def solved(pos):
    return pos == GOAL


def alive(pos):
    return True
`;

/** A Plan-Path board as read back from a prompt. */
export interface PlanPathView {
  readonly shape: GridShape;
  readonly walls: Uint8Array;
  readonly pos: number;
  readonly goal: number;
}

/** The board of a Plan-Path prompt (either format), or undefined when it shows none. */
export function readPlanPath(prompt: string): PlanPathView | undefined {
  const rows = readBoardRows(prompt, PLAN_PATH_ALPHABET);
  if (rows === undefined) return undefined;
  const shape = { height: rows.length, width: rows[0]!.length };
  const walls = new Uint8Array(shape.height * shape.width);
  let pos = -1;
  let goal = -1;
  rows.forEach((row, r) =>
    [...row].forEach((ch, c) => {
      const cell = cellAt(shape, r, c);
      if (ch === PLAN_PATH_CELLS.wall) walls[cell] = 1;
      if (ch === PLAN_PATH_CELLS.agent) pos = cell;
      if (ch === PLAN_PATH_CELLS.goal) goal = cell;
    }),
  );
  return pos < 0 || goal < 0 ? undefined : { shape, walls, pos, goal };
}

const planPathGame: ScriptedGame<PlanPathView> = {
  read: readPlanPath,
  solve: (view) => solvePlanPath({ shape: view.shape, walls: view.walls, from: view.pos, goal: view.goal }),
  apply(view, dir) {
    const next = neighbor(view.shape, view.pos, dir);
    return next < 0 || view.walls[next] === 1 ? view : { ...view, pos: next };
  },
  solved: (view) => view.pos === view.goal,
  program: (prompt, steps) =>
    moverProgram({ rows: readBoardRows(prompt, PLAN_PATH_ALPHABET) ?? [], steps, rules: PLAN_PATH_RULES }),
};

/** The model-free Plan-Path player (`policy.kind: scripted`). */
export const planPathScripted = createScriptedMover(planPathGame);
