/**
 * MAGRPO joint actions (SEEDS.md section 2). At one node every agent has sampled G responses
 * from its own prompt; a joint action picks one response per agent:
 *
 * - `aligned`: the g-th response of every agent together, G joint actions;
 * - `cross`: every combination (the Cartesian product), G^n joint actions for n agents.
 *
 * Cross joint actions are numbered like an n-digit base-G number whose first (most
 * significant) digit is the first agent's response: with G = 2 and agents (a, b),
 * j = 0 is (a0, b0), 1 is (a0, b1), 2 is (a1, b0), 3 is (a1, b1). Node paths in rollouts use
 * these numbers, so the order is part of the file format.
 */
import { invariant } from '../util/errors.js';

export type JointMode = 'aligned' | 'cross';

/** Number of joint actions of a node with `agents` agents and `g` responses each. */
export function jointActionCount(mode: JointMode, agents: number, g: number): number {
  return mode === 'aligned' ? g : g ** agents;
}

/**
 * For each joint action j, the response index each agent contributes: `responses_J_N[j][i]`
 * is the response (0..G-1) of agent i in joint action j.
 */
export function jointActions(mode: JointMode, agents: number, g: number): number[][] {
  invariant(Number.isInteger(agents) && agents >= 1, `joint actions need at least one agent, got ${agents}`);
  invariant(Number.isInteger(g) && g >= 1, `joint actions need G >= 1 responses per agent, got ${g}`);
  const count = jointActionCount(mode, agents, g);
  return Array.from({ length: count }, (_, j) => {
    if (mode === 'aligned') return Array.from({ length: agents }, () => j);
    const responses_N = new Array<number>(agents);
    let rest = j;
    for (let i = agents - 1; i >= 0; i--) {
      responses_N[i] = rest % g;
      rest = Math.floor(rest / g);
    }
    return responses_N;
  });
}
