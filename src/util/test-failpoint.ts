/**
 * TEST-ONLY failpoints, for the fault tests that kill a process in the middle of a write. A
 * checkpoint of a tiny test model is written in a few milliseconds, too short a window to hit
 * reliably with a SIGKILL from outside; a failpoint holds the process still at that moment.
 *
 * With `TROUPE_TEST_FAILPOINT=<name>` (or `<name>:<text>`, which also needs `detail` to contain
 * `<text>`) in the environment, `failpoint(name, detail)` prints `troupe test failpoint <name>
 * reached: <detail>` on stderr and blocks the whole process for up to a minute, so the test can
 * kill it there. Nothing but those tests sets the variable; unset, a failpoint is one
 * environment lookup. Never use it to change what a run computes.
 *
 *   TROUPE_TEST_FAILPOINT='atomic-write:.tmp-step-000002-' troupe train run.yaml   # pauses in step 2's checkpoint
 */
import { writeSync } from 'node:fs';

/** How long a reached failpoint holds the process before it goes on (the test kills it well before). */
const HOLD_MS = 60_000;

export function failpoint(name: string, detail: string): void {
  const wanted = process.env.TROUPE_TEST_FAILPOINT;
  if (wanted === undefined) return;
  const colon = wanted.indexOf(':');
  const [wantedName, text] = colon < 0 ? [wanted, ''] : [wanted.slice(0, colon), wanted.slice(colon + 1)];
  if (wantedName !== name || !detail.includes(text)) return;
  writeSync(2, `troupe test failpoint ${name} reached: ${detail}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, HOLD_MS);
}
