// The skip reason of a test that runs programs in the code sandbox, where this host lacks what
// the sandbox needs: Linux, util-linux's `unshare`, a `python3` on PATH, and either root or
// unprivileged user namespaces (the one thing started here: `unshare --user ... true`, a few
// milliseconds, since only trying tells whether the kernel and its policies allow it). A slow
// start on a busy machine is not a missing capability (the test then runs and says so).
// One wording per cause, so the summary line of `npm test` counts the skipped tests under it.
import { existsSync } from 'node:fs';
import { findUnshare, userNamespacesWork } from './probe-host.js';

function onPath(command: string): boolean {
  return (process.env.PATH ?? '/usr/bin:/bin').split(':').some((dir) => dir !== '' && existsSync(`${dir}/${command}`));
}

function probe(): false | string {
  if (process.platform !== 'linux') return `no code sandbox: it needs Linux namespaces; this is ${process.platform}`;
  const unshare = findUnshare();
  if (unshare === undefined) return "no code sandbox: 'unshare' (util-linux) is not installed";
  if (!onPath('python3')) return 'no code sandbox: python3 is not on PATH';
  if (process.getuid?.() !== 0 && !userNamespacesWork(unshare)) return 'no code sandbox: not root, and this host does not allow unprivileged user namespaces';
  return false;
}

/** `false` where the sandbox can run here, else the reason (node:test's `skip` option). */
export const sandboxSkip: false | string = probe();

/** Built-in tasks whose every episode runs programs in the sandbox (tests, tool code). */
const SANDBOXED_TASKS = new Set(['code', 'coop-code', 'math']);

/** `sandboxSkip` for a test that plays the named task, `false` for a task that needs no sandbox. */
export function sandboxSkipFor(task: string): false | string {
  return SANDBOXED_TASKS.has(task) ? sandboxSkip : false;
}
