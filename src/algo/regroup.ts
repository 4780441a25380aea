/**
 * The grouping ablation of AT-GRPO (SEEDS.md: "agent- and turn-wise grouping"): which sample
 * fields make a tree-sampling group. AT-GRPO keys a group by (task, turn, role), so only
 * samples of one prompt are compared. The ablations drop the turn (agent-wise only: one group
 * per task and role, over all turns), the role (turn-wise only: one group per task and turn,
 * over both roles) or both (one group per task, as plain GRPO pools a task's samples).
 * Pure: returns new samples with `group` rewritten; a tree sample is its own unit either way.
 */
export const groupings = ['task-turn-role', 'task-role', 'task-turn', 'task'] as const;
export type Grouping = (typeof groupings)[number];

export interface GroupedSample {
  readonly task_id: string;
  readonly turn: number;
  readonly role: string;
  readonly group: string;
}

export function groupKey(sample: GroupedSample, grouping: Grouping): string {
  switch (grouping) {
    case 'task-turn-role':
      return `${sample.task_id}|t${sample.turn}|${sample.role}`;
    case 'task-role':
      return `${sample.task_id}|${sample.role}`;
    case 'task-turn':
      return `${sample.task_id}|t${sample.turn}`;
    case 'task':
      return sample.task_id;
  }
}

/** The samples regrouped; the default grouping returns the input as it is. */
export function regroup<S extends GroupedSample>(samples: readonly S[], grouping: Grouping): readonly S[] {
  if (grouping === 'task-turn-role') return samples;
  return samples.map((s) => ({ ...s, group: groupKey(s, grouping) }));
}
