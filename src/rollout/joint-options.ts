/**
 * Defaults and checks of the MAGRPO settings of `joint` mode, in one place for the rollout and
 * the config (docs/magrpo.md explains each choice).
 */
import { TroupeError } from '../util/errors.js';
import type { JointOptions, JointReward } from './types.js';

const JOINT_REWARDS: readonly JointReward[] = ['global', 'global+failures', 'global+local'];

/** SEEDS.md gives gamma 0.9 to 1.0; the lower end keeps later turns from dominating. */
export const DEFAULT_GAMMA = 0.9;

/**
 * Fills the defaults: aligned joint actions, gamma 0.9, sum credit (MAGRPO), and every joint
 * action expanded for aligned (G^T nodes) but only the best one for cross (G^n children per
 * node would otherwise grow as G^(nT)).
 */
export function resolveJointOptions(partial: Partial<JointOptions> = {}): JointOptions {
  const joint = partial.joint ?? 'aligned';
  const options: JointOptions = {
    joint,
    gamma: partial.gamma ?? DEFAULT_GAMMA,
    credit: partial.credit ?? 'sum',
    expand: partial.expand ?? (joint === 'cross' ? 'best' : 'all'),
    reward: partial.reward ?? 'global',
  };
  const problems: string[] = [];
  if (options.joint !== 'aligned' && options.joint !== 'cross') {
    problems.push(`magrpo.joint: expected aligned | cross, got ${JSON.stringify(options.joint)}`);
  }
  if (!(options.gamma >= 0 && options.gamma <= 1)) problems.push(`magrpo.gamma: expected a number in [0, 1], got ${options.gamma}`);
  if (options.credit !== 'sum' && options.credit !== 'mean') {
    problems.push(`magrpo.credit: expected sum | mean, got ${JSON.stringify(options.credit)}`);
  }
  if (options.expand !== 'all' && options.expand !== 'best' && options.expand !== 'sampled') {
    problems.push(`magrpo.expand: expected all | best | sampled, got ${JSON.stringify(options.expand)}`);
  }
  if (!JOINT_REWARDS.includes(options.reward)) {
    problems.push(`magrpo.reward: expected ${JOINT_REWARDS.join(' | ')}, got ${JSON.stringify(options.reward)}`);
  }
  if (problems.length > 0) throw new TroupeError('config', problems.join('; '));
  return options;
}

/** Most nodes one task's tree may have: beyond this a rollout step would not fit a CPU budget. */
export const MAX_NODES_PER_TASK = 1024;

/** Upper bound on one task's nodes (every joint action expands until the turn limit). */
export function maxNodesPerTask(jointActionsPerNode: number, expand: JointOptions['expand'], maxTurns: number): number {
  if (expand !== 'all') return maxTurns;
  let total = 0;
  let level = 1;
  for (let turn = 0; turn < maxTurns && total <= MAX_NODES_PER_TASK; turn++) {
    total += level;
    level *= jointActionsPerNode;
  }
  return total;
}
