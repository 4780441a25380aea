// The skip reason of a test that runs programs in the code sandbox, where this host cannot make
// one (not Linux, not root, no `unshare`, no python3). Probed once per test file; one wording per
// cause, so the summary line of `npm test` counts the skipped tests under it.
import { TroupeError } from '../util/errors.js';
import { probeHost } from './probe-host.js';

function probe(): false | string {
  try {
    probeHost();
    return false;
  } catch (error) {
    if (!(error instanceof TroupeError)) throw error;
    // The first clause names the missing piece; the rest (the fix, this process's uid) varies by host.
    return `no code sandbox: ${error.message.split(/; |\. /)[0]}`;
  }
}

/** `false` where the sandbox can run here, else the reason (node:test's `skip` option). */
export const sandboxSkip: false | string = probe();

/** Built-in tasks whose every episode runs programs in the sandbox (tests, tool code). */
const SANDBOXED_TASKS = new Set(['code', 'coop-code', 'math']);

/** `sandboxSkip` for a test that plays the named task, `false` for a task that needs no sandbox. */
export function sandboxSkipFor(task: string): false | string {
  return SANDBOXED_TASKS.has(task) ? sandboxSkip : false;
}
