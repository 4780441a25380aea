/**
 * MAGRPO returns over a tree of joint actions (SEEDS.md section 2). Every node of the tree is
 * one (task, turn) situation where each agent sampled G responses; its joint actions were each
 * scored with one joint reward r, and a joint action that the episode continued from expanded
 * into a child node (the next turn, prompts built by the external transition). The return of a
 * joint action is
 *
 *   R = r + gamma * mean(R of the child node's joint actions)      (leaf: R = r)
 *
 * so a joint action is worth its own reward plus the discounted average of what the team
 * achieved after it. Pure functions over plain data; the rollout builds the tree.
 */
import { invariant } from '../util/errors.js';

/** One node of a joint-action tree: what the returns need of it. */
export interface JointTreeNode {
  /** Joint reward of each joint action of the node. */
  readonly rewards_J: readonly number[];
  /** The child node each joint action expanded into; undefined for a leaf joint action. */
  readonly children_J: ReadonlyArray<JointTreeNode | undefined>;
}

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/**
 * The returns of every joint action of every node below (and including) `root`:
 * `returnsOf.get(node)![j]` is R of joint action j of `node`. Works bottom-up, each node once.
 */
export function jointReturns(root: JointTreeNode, gamma: number): Map<JointTreeNode, number[]> {
  invariant(gamma >= 0 && gamma <= 1, `MAGRPO gamma must be in [0, 1], got ${gamma}`);
  const returnsOf = new Map<JointTreeNode, number[]>();
  const visit = (node: JointTreeNode): number[] => {
    invariant(node.rewards_J.length > 0, 'a joint-action node has no joint actions');
    invariant(
      node.children_J.length === node.rewards_J.length,
      `a node has ${node.rewards_J.length} joint rewards but ${node.children_J.length} child slots`,
    );
    const returns_J = node.rewards_J.map((r, j) => {
      const child = node.children_J[j];
      return child === undefined ? r : r + gamma * mean(visit(child));
    });
    returnsOf.set(node, returns_J);
    return returns_J;
  };
  visit(root);
  return returnsOf;
}
