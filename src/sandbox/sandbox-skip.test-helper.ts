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
