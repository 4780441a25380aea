/**
 * Whether process `pid` runs on this machine (it may belong to another user). The temporary
 * files an interrupted write leaves carry the writer's pid, so the next process removes only
 * those of writers that are gone.
 */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
