/**
 * Runs of one recipe over several seeds are named alike: `plan-path-lora-seed1`,
 * `plan-path-lora-seed2` (or `-seed-1`). Folder names that differ only by that trailing suffix
 * form one group, which `troupe compare` reports as a mean with each seed's number; a seed
 * folder without siblings is a group of one (its row names the base and shows its seed).
 * Nothing is inferred from configs: the names are the researcher's statement of what belongs
 * together.
 *
 *   groupBySeed([{ name: 'a-seed2' }, { name: 'b' }, { name: 'a-seed1' }, { name: 'c-seed3' }])
 *   // [{ name: 'a', members: [a-seed1, a-seed2] (seeds 1, 2) }, { name: 'b', members: [b] }, { name: 'c', members: [c-seed3] (seed 3) }]
 */

/** `base-seedN` or `base-seed-N` (case-insensitive), with a non-empty base. */
const SEED_SUFFIX = /^(.+?)-seed-?(\d+)$/i;

/** The group name and seed a folder name encodes, or undefined when it has no seed suffix. */
export function seedOf(name: string): { readonly base: string; readonly seed: number } | undefined {
  const match = SEED_SUFFIX.exec(name);
  return match ? { base: match[1]!, seed: Number(match[2]) } : undefined;
}

export interface SeedGroup<R> {
  /**
   * The shared base name (also for one seed folder alone); a run without a seed suffix keeps
   * its own name, and a group whose base is such a run's name too is called `<base>-seed*`.
   */
  readonly name: string;
  /** Seeds in ascending order; `seed` is absent for a run without a seed suffix. */
  readonly members: ReadonlyArray<{ readonly seed?: number; readonly run: R }>;
}

/** Groups runs by base name in order of first appearance; a base with one seed folder is a group of one. */
export function groupBySeed<R extends { readonly name: string }>(runs: readonly R[]): SeedGroup<R>[] {
  const byBase = new Map<string, Array<{ seed: number; run: R }>>();
  const order: Array<{ base: string } | { run: R }> = [];
  for (const run of runs) {
    const parsed = seedOf(run.name);
    if (!parsed) {
      order.push({ run });
      continue;
    }
    if (!byBase.has(parsed.base)) {
      byBase.set(parsed.base, []);
      order.push({ base: parsed.base });
    }
    byBase.get(parsed.base)!.push({ seed: parsed.seed, run });
  }
  // Two rows must not share a name: runs `a` and `a-seed1` stay apart as `a` and `a-seed*`.
  const unseeded = new Set(order.flatMap((entry) => ('run' in entry ? [entry.run.name] : [])));
  return order.map((entry) => {
    if ('run' in entry) return { name: entry.run.name, members: [{ run: entry.run }] };
    const members = byBase.get(entry.base)!.sort((a, b) => a.seed - b.seed);
    return { name: unseeded.has(entry.base) ? `${entry.base}-seed*` : entry.base, members };
  });
}
