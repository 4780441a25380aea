/**
 * One downloader per blob: two Troupe processes (or two loads in one process) that want the
 * same file would otherwise append to the same `.incomplete` and both fail the hash check.
 * The lock is a file created with O_EXCL beside the blob, holding the owner's pid; a lock whose
 * owner is gone (killed mid-download) is taken over, so a crash never wedges the cache.
 * huggingface_hub locks with flock on files under .locks/, which this does not touch: the two
 * tools can still race on one blob, and then the hash check catches it.
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 100;

/** True when a process with this pid exists (EPERM: it exists but belongs to another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function lockOwner(lock: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined; // released meanwhile, or not yet written: look again
  }
}

/**
 * Waits until this caller holds `<blob>.lock`; returns the function that releases it.
 * `onWait` is called once, when another live owner makes this caller wait.
 */
export async function lockBlob(blob: string, onWait: (ownerPid: number) => void): Promise<() => void> {
  const lock = `${blob}.lock`;
  let warned = false;
  let unreadable = 0;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lock, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = lockOwner(lock);
    // A lock without a readable pid for a whole second was left by a crash between create and write.
    if (owner === undefined ? ++unreadable > 1000 / POLL_MS : !processAlive(owner)) {
      rmSync(lock, { force: true });
      unreadable = 0;
      continue;
    }
    if (owner !== undefined && !warned) {
      warned = true;
      onWait(owner);
    }
    await sleep(POLL_MS);
  }
}
