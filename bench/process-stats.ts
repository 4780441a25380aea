// Small helpers shared by the bench scripts: command-line numbers and the process's peak RSS.
import { readFileSync } from 'node:fs';

/** Peak resident set size of this process (VmHWM), bytes; NaN where /proc is missing. */
export function peakRss(): number {
  try {
    const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
    return line === undefined ? Number.NaN : Number(line.replace(/\D+/g, '')) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** The number after `--name` on the command line, or `fallback`. */
export function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
}
