// A small disk for the tests of what a full one does: a tmpfs of a few KiB mounted in a private
// mount namespace (util-linux's unshare; a user who is not root mounts it inside a user
// namespace, where the kernel allows unprivileged ones). Only the commands run inside see it.
import { spawnSync } from 'node:child_process';

/** unshare's arguments for a private mount namespace (with a user namespace when not root). */
export const privateMountArgs = process.getuid?.() === 0 ? ['--mount', '--propagation', 'private'] : ['--user', '--map-root-user', '--mount', '--propagation', 'private'];

/** The skip reason of a test that needs it, where this machine cannot make one (false where it can). */
export function smallDiskUnavailable(): false | string {
  return spawnSync('unshare', [...privateMountArgs, 'true']).status === 0 ? false : `needs \`unshare ${privateMountArgs.join(' ')}\` to make a small tmpfs`;
}
