/**
 * The Python programs the scripted player writes for the natural-format `tool` role of the
 * grid tasks: the board copied from the prompt, a breadth-first search over the game's
 * states, and a step list drawn by the scripted player from its Rng (`*` = the next move of a
 * shortest plan from wherever the program's own simulation stands, a letter = that move, the
 * skill mix of scripted-mover.ts). At skill 1 the list is all `*`, so the program is a plain
 * BFS planner whose output solves the board. Randomness stays in Troupe's Rng; the program
 * itself is deterministic.
 *
 * A task supplies `rules`: Python defining `start_state()`, `move(state, d)` (the next state,
 * or None for an illegal move), `solved(state)` and `alive(state)` (False once the board can
 * no longer be solved, e.g. a Sokoban box on a dead square). States must be hashable.
 */

/** Python for the names every task's rules may use: BOARD, H, W, DELTAS, floor(r, c), cells(chars). */
const PRELUDE = `DELTAS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
H, W = len(BOARD), len(BOARD[0])


def floor(r, c):
    return 0 <= r < H and 0 <= c < W and BOARD[r][c] != "#"


def cells(chars):
    return [(r, c) for r in range(H) for c in range(W) if BOARD[r][c] in chars]
`;

const SEARCH_AND_PLAY = `def shortest_plan(start):
    prev = {start: None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if solved(state):
            plan = []
            while prev[state] is not None:
                state, d = prev[state]
                plan.append(d)
            return plan[::-1]
        for d in "UDLR":
            nxt = move(state, d)
            if nxt is not None and nxt not in prev and alive(nxt):
                prev[nxt] = (state, d)
                queue.append(nxt)
    return None


state, plan, moves = start_state(), [], []
for step in STEPS:
    if solved(state) or not alive(state):
        break
    if step == "*":
        if not plan:
            plan = shortest_plan(state) or []
            if not plan:
                break
        d = plan.pop(0)
    else:
        d, plan = step, []
    moves.append(d)
    state = move(state, d) or state
print(" ".join(moves))
`;

export function moverProgram(options: { rows: readonly string[]; steps: string; rules: string }): string {
  const board = options.rows.map((row) => `    ${JSON.stringify(row)},`).join('\n');
  return [
    'from collections import deque',
    '',
    'BOARD = [',
    board,
    ']',
    '# "*": the next move of a shortest plan from here; a letter: that move.',
    `STEPS = ${JSON.stringify(options.steps)}`,
    PRELUDE,
    '',
    options.rules.trim(),
    '',
    '',
    SEARCH_AND_PLAY,
  ].join('\n');
}

/** A model-style answer holding `code`. */
export function fencedPython(code: string): string {
  return `\`\`\`python\n${code.trimEnd()}\n\`\`\`\n`;
}
