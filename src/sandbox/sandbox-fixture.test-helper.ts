// The sandbox of the sandbox tests, with small limits so each file runs in a few seconds, and
// a look at /proc for processes that outlive their run.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { isSandboxUid, Sandbox } from './sandbox.js';
import type { RunRequest } from './types.js';

export const sandbox = new Sandbox({
  concurrency: 2,
  limits: { wallMs: 2000, cpuMs: 1000, memoryMb: 128, outputBytes: 4096, processes: 16, diskMb: 8 },
});

export function py(code: string, extra: Partial<RunRequest> = {}): ReturnType<Sandbox['run']> {
  return sandbox.run({ language: 'python', code, ...extra });
}

/**
 * Pids of live (non-zombie) sandboxed processes of this Troupe process: those owned by one of
 * its sandbox uids (as root), and its descendants in another PID namespace (any mode: without
 * root a program keeps Troupe's own uid, so only where it lives tells it apart).
 */
export function sandboxProcesses(): number[] {
  const ownPidNs = readlinkSync('/proc/self/ns/pid');
  const parents = new Map<number, number>();
  const live: Array<{ pid: number; sandboxUid: boolean; otherPidNs: boolean }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const pid = Number(entry);
      parents.set(pid, Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]));
      if (/^State:\s+(\S)/m.exec(status)?.[1] === 'Z') continue;
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      live.push({ pid, sandboxUid: isSandboxUid(uid), otherPidNs: readlinkSync(`/proc/${entry}/ns/pid`) !== ownPidNs });
    } catch {
      // the process ended while we looked, or is not ours to inspect
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true;
    return false;
  };
  return live.filter((p) => p.sandboxUid || (p.otherPidNs && descends(p.pid))).map((p) => p.pid);
}
