import { readFileSync } from 'node:fs';

/** Jiffies of the aggregate `cpu` line of /proc/stat: all, and idle + iowait. */
export function parseProcStat(text: string): { total: number; idle: number } | undefined {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (line === undefined) return undefined;
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  if (fields.length < 5 || fields.some((x) => !Number.isFinite(x))) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  return { total, idle: fields[3]! + fields[4]! };
}

/** Share of the machine's CPU time (0-1) that was not idle between two /proc/stat readings. */
export function busyShare(before: { total: number; idle: number }, after: { total: number; idle: number }): number | undefined {
  const total = after.total - before.total;
  if (total <= 0) return undefined;
  return Math.min(1, Math.max(0, 1 - (after.idle - before.idle) / total));
}

/**
 * How busy the machine is with other work, measured over `ms` while this process sleeps:
 * the share of all cores' time not idle (steal included). The load average is no substitute:
 * under some hypervisors it stays near 1 on an idle machine. undefined where /proc/stat is
 * missing (not Linux).
 */
export async function measureOtherCpuBusy(ms = 500): Promise<number | undefined> {
  const read = () => {
    try {
      return parseProcStat(readFileSync('/proc/stat', 'utf8'));
    } catch {
      return undefined;
    }
  };
  const before = read();
  if (before === undefined) return undefined;
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = read();
  return after === undefined ? undefined : busyShare(before, after);
}
