// Shared by the rollout tests: replays a tree rollout's chosen responses through the roles on
// a fresh env and checks that every node's prompt is exactly the prompt of the replayed state.
// This is what "the chosen branch's state is what the next role and the next turn see" means.
import assert from 'node:assert/strict';
import type { Env, TaskSource, Team } from '../envs/types.js';
import type { Sample } from './types.js';

export function assertChosenStateContinues<E extends Env>(
  team: Team<E>,
  source: TaskSource<E>,
  tasks: readonly number[],
  samples: readonly Sample[],
): void {
  for (const index of tasks) {
    const env = source.make(index, 'train');
    const chosen = samples.filter((s) => s.task_id === env.taskId && s.chosen);
    assert.ok(chosen.length > 0, `${env.taskId} has samples`);
    for (let turn = 0; chosen.some((s) => s.turn === turn); turn++) {
      const ctx = { turn, maxTurns: team.maxTurns };
      const acting = team.roles.filter((r) => chosen.some((s) => s.turn === turn && s.role === r.name));
      const startPrompts = acting.map((r) => r.prompt(env, ctx));
      for (const [i, role] of acting.entries()) {
        const sample = chosen.find((s) => s.turn === turn && s.role === role.name)!;
        const expected = team.order === 'sequential' ? role.prompt(env, ctx) : startPrompts[i];
        assert.equal(sample.prompt, expected, `${env.taskId} turn ${turn} ${role.name}`);
        if (!env.done) role.step(env, role.parse(sample.response), ctx);
      }
    }
    assert.equal(env.done || chosen.every((s) => s.turn < team.maxTurns), true);
  }
}
