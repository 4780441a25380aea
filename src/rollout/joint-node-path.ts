/**
 * Names of the nodes of a joint-action tree (joint mode). The root of a task is `0`; the child
 * of joint action j of node `p` is `p.j`; so `0.2.1` is turn 2, reached through joint action 2
 * at the root and joint action 1 after it. The depth of a path is its turn.
 */

export const ROOT_PATH = '0';

export function childPath(path: string, jointAction: number): string {
  return `${path}.${jointAction}`;
}

/** The turn of a node: 0 for the root. */
export function depthOf(path: string): number {
  return path.split('.').length - 1;
}

/** The parent's path, or undefined for the root. */
export function parentOf(path: string): string | undefined {
  const cut = path.lastIndexOf('.');
  return cut < 0 ? undefined : path.slice(0, cut);
}

/** Group key of a joint node's role: its G completions of one prompt. */
export function jointGroupKey(taskId: string, path: string, role: string): string {
  return `${taskId}|n${path}|${role}`;
}
