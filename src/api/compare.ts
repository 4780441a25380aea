/**
 * `compare`: runs side by side, as `troupe compare` shows them: a markdown table of each run's
 * final held-out success (95% Wilson interval, n, step), with runs named `<base>-seedN` folded
 * into one row per base, and optionally one self-contained HTML page of their curves.
 */
import { writeFileAtomic } from '../engine/io/atomic-write.js';
import { compareRows, markdownTable, type CompareRow as TableRow } from '../train/compare/compare-table.js';
import { readRun } from '../train/compare/read-run.js';
import { renderCompare } from '../train/compare/render-compare.js';
import { groupBySeed } from '../train/compare/seed-groups.js';
import { TroupeError } from '../util/errors.js';

/** One run's final held-out success (camelCase; metrics.jsonl has it as `success_rate`, `ci_low`, ...). */
export interface SeedResult {
  /** The run folder's name. */
  readonly run: string;
  /** N of a `<base>-seedN` folder. */
  readonly seed?: number;
  readonly successRate: number;
  /** 95% Wilson score interval of the success rate. */
  readonly ciLow: number;
  readonly ciHigh: number;
  readonly n: number;
  /** The RL step after which it was measured; -1 is the policy before any RL update. */
  readonly step: number;
}

/** One row of the table: a run without a seed suffix, or the runs `<base>-seed1`, `<base>-seed2`, ... (one or more) folded together. */
export interface CompareRow {
  /** The group's base name, or the folder name of a run without a seed suffix. */
  readonly name: string;
  /** Mean success over the members (a lone run: its own). */
  readonly meanSuccess: number;
  readonly members: readonly SeedResult[];
}

function camelCased(row: TableRow): CompareRow {
  return {
    name: row.name,
    meanSuccess: row.mean_success,
    members: row.members.map((m) => ({ run: m.run, ...(m.seed === undefined ? {} : { seed: m.seed }), successRate: m.success_rate, ciLow: m.ci_low, ciHigh: m.ci_high, n: m.n, step: m.step })),
  };
}

export interface CompareOptions {
  /** Run folders (runs/<name>), in the order the table and legends list them. */
  readonly runs: readonly string[];
  /** Also write the HTML page here. */
  readonly out?: string;
  /** The page's heading (default: "Runs compared"). */
  readonly title?: string;
}

export interface CompareResult {
  /** One row per run, or per seed group (base name, mean, each seed's numbers). */
  readonly rows: readonly CompareRow[];
  /** The rows as a markdown table, ending in a newline. */
  readonly markdown: string;
  /** The page (also written to `out` when given). */
  readonly html: string;
  /** Cut-short last metrics lines that were skipped, each naming its file. */
  readonly warnings: readonly string[];
}

/**
 * @example
 * ```ts
 * import { compare } from 'troupe';
 * const { markdown } = await compare({ runs: ['runs/pp-seed1', 'runs/pp-seed2', 'runs/pp-lora-seed1'], out: 'compare.html' });
 * process.stdout.write(markdown);
 * ```
 */
export async function compare(options: CompareOptions): Promise<CompareResult> {
  if (options.runs.length === 0) throw new TroupeError('input', 'compare needs at least one run folder, e.g. runs/plan-path-seed1 runs/plan-path-seed2');
  const runs = options.runs.map(readRun);
  const seen = new Map<string, string>();
  for (const run of runs) {
    const other = seen.get(run.name);
    if (other !== undefined) throw new TroupeError('input', `two run folders are named ${run.name} (${other} and ${run.dir}); rows and legends go by folder name, so rename or copy one`);
    seen.set(run.name, run.dir);
  }
  const groups = groupBySeed(runs);
  const rows = compareRows(groups);
  const html = renderCompare({ title: options.title ?? 'Runs compared', groups, rows });
  if (options.out !== undefined) writeFileAtomic(options.out, html);
  return { rows: rows.map(camelCased), markdown: markdownTable(rows), html, warnings: runs.flatMap((r) => r.warnings) };
}
