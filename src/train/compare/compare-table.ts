/**
 * The table `troupe compare` prints: each run's (or seed group's) final held-out success with
 * its 95% Wilson interval, the episodes it was measured on and the RL step after which it was
 * measured. A group shows the mean over seeds and each seed's number in seed order (a group of
 * one seed: its seed and its number, no mean of one):
 *
 *   | run | seeds | held-out success % | 95% Wilson interval % | n | after RL step |
 *   |---|---|---|---|---|---|
 *   | plan-path-lora | 1, 2, 3 | 89.0 (87.5 / 88.0 / 91.5) | 82.2-91.9 / 82.7-92.0 / 87.0-94.6 | 200 | 99 |
 *
 * The interval is recomputed from success_rate x n, so it is a Wilson interval whatever wrote
 * the file. A group's mean has no interval of its own: pooling the seeds' episodes would hide
 * how far the seeds differ, which is what the per-seed numbers show.
 */
import { wilsonInterval } from '../evaluate.js';
import type { ComparedRun } from './read-run.js';
import type { SeedGroup } from './seed-groups.js';

/** One seed's (or a lone run's) final held-out result. */
export interface SeedResult {
  readonly run: string;
  readonly seed?: number;
  readonly success_rate: number;
  readonly ci_low: number;
  readonly ci_high: number;
  readonly n: number;
  /** The RL step after which it was measured; -1 is the policy before any RL update. */
  readonly step: number;
}

export interface CompareRow {
  /** The group's base name, or the folder name of a run without a seed suffix. */
  readonly name: string;
  /** Mean success over the members (a lone run: its own). */
  readonly mean_success: number;
  readonly members: readonly SeedResult[];
}

export function resultOf(run: ComparedRun, seed?: number): SeedResult {
  const { success_rate, n, step } = run.finalEval;
  const { low, high } = wilsonInterval(Math.round(success_rate * n), n);
  return { run: run.name, ...(seed === undefined ? {} : { seed }), success_rate, ci_low: low, ci_high: high, n, step };
}

export function compareRows(groups: readonly SeedGroup<ComparedRun>[]): CompareRow[] {
  return groups.map((group) => {
    const members = group.members.map((m) => resultOf(m.run, m.seed));
    const mean = members.reduce((sum, m) => sum + m.success_rate, 0) / members.length;
    return { name: group.name, mean_success: mean, members };
  });
}

const pct = (x: number) => (100 * x).toFixed(1);
const stepText = (step: number) => (step === -1 ? 'before RL' : String(step));
/** One value when every member agrees (the usual case), else each member's. */
const shared = (values: readonly string[]) => (values.every((v) => v === values[0]) ? values[0]! : values.join(' / '));

/** The cells of one row, as both the markdown and the HTML table show them. */
export function rowCells(row: CompareRow): string[] {
  const m = row.members;
  const grouped = m.length > 1;
  const success = grouped ? `${pct(row.mean_success)} (${m.map((r) => pct(r.success_rate)).join(' / ')})` : pct(m[0]!.success_rate);
  return [
    row.name,
    m.flatMap((r) => (r.seed === undefined ? [] : [r.seed])).join(', '),
    success,
    m.map((r) => `${pct(r.ci_low)}-${pct(r.ci_high)}`).join(' / '),
    shared(m.map((r) => String(r.n))),
    shared(m.map((r) => stepText(r.step))),
  ];
}

export const tableHead = ['run', 'seeds', 'held-out success %', '95% Wilson interval %', 'n', 'after RL step'] as const;

export function markdownTable(rows: readonly CompareRow[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(tableHead), line(tableHead.map(() => '---')), ...rows.map((r) => line(rowCells(r)))].join('\n') + '\n';
}
