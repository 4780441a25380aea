// The sandbox of the sandbox tests, with small limits so each file runs in a few seconds, and
// a look at /proc for processes that outlive their run.
import { readdirSync, readFileSync } from 'node:fs';
import { isSandboxUid, Sandbox } from './sandbox.js';
import type { RunRequest } from './types.js';

export const sandbox = new Sandbox({
  concurrency: 2,
  limits: { wallMs: 2000, cpuMs: 1000, memoryMb: 128, outputBytes: 4096, processes: 16, diskMb: 8 },
});

export function py(code: string, extra: Partial<RunRequest> = {}): ReturnType<Sandbox['run']> {
  return sandbox.run({ language: 'python', code, ...extra });
}

/** Pids of live (non-zombie) processes owned by any sandbox uid of this Troupe process. */
export function sandboxProcesses(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      const state = /^State:\s+(\S)/m.exec(status)?.[1];
      if (isSandboxUid(uid) && state !== 'Z') found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}
