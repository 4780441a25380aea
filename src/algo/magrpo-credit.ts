/**
 * Credit assignment from joint actions back to the responses that formed them (SEEDS.md
 * section 2). Each agent response is trained with one number, its *credit*:
 *
 * - aligned joint actions: a response is in exactly one joint action; its credit is that
 *   joint action's return;
 * - cross joint actions: a response is in G^(n-1) joint actions (one per combination of the
 *   other agents' responses); MAGRPO credits it with the SUM of their returns (`sum`, the
 *   default). `mean` divides by G^(n-1): within a group every response is in equally many joint
 *   actions, so the two differ only by a constant factor; the grpo estimator gives the same
 *   advantages for both, while mean/rloo/max/raw advantages scale by G^(n-1) under `sum`.
 */
import { invariant } from '../util/errors.js';

export type CreditRule = 'sum' | 'mean';

export interface CreditInput {
  /** `responses_J_N[j][i]`: agent i's response index in joint action j (see jointActions). */
  readonly responses_J_N: readonly (readonly number[])[];
  /** Return of each joint action. */
  readonly returns_J: readonly number[];
  /** Responses per agent (G). */
  readonly g: number;
  readonly rule: CreditRule;
}

/** `credits_N_G[i][g]`: the credit of agent i's response g. */
export function creditResponses(input: CreditInput): number[][] {
  const { responses_J_N, returns_J, g, rule } = input;
  invariant(responses_J_N.length === returns_J.length, `${responses_J_N.length} joint actions but ${returns_J.length} returns`);
  const agents = responses_J_N[0]?.length ?? 0;
  const sums_N_G = Array.from({ length: agents }, () => new Array<number>(g).fill(0));
  const counts_N_G = Array.from({ length: agents }, () => new Array<number>(g).fill(0));
  responses_J_N.forEach((responses_N, j) => {
    responses_N.forEach((response, i) => {
      sums_N_G[i]![response]! += returns_J[j]!;
      counts_N_G[i]![response]! += 1;
    });
  });
  return sums_N_G.map((sums_G, i) =>
    sums_G.map((sum, response) => {
      const count = counts_N_G[i]![response]!;
      invariant(count > 0, `agent ${i}'s response ${response} is in no joint action`);
      return rule === 'sum' ? sum : sum / count;
    }),
  );
}
