/**
 * Seeded mutations of a parsed config, for the property test that every config either fails
 * with one config error line or starts (config-probe.ts): a key deleted, a value of the wrong
 * type, a huge, negative, fractional or non-finite number, an unknown enum word, an empty
 * string or list. Pure: the same (config, seed) gives the same mutant.
 *
 * ```ts
 * const mutant = mutateConfig(YAML.parse(text), 7);   // { config, change: 'warm_start.epochs = 1000000000000' }
 * ```
 */
import { Rng } from '../util/rng.js';

export interface Mutant {
  readonly config: unknown;
  /** What was changed, e.g. `rollout.stop.0 = ""`, for failure messages. */
  readonly change: string;
}

/** The replacement values; numbers that exhaust memory or time, types a schema must refuse. */
const REPLACEMENTS: readonly unknown[] = [
  1e12, 1e308, -1e12, -1, 0, -0.5, 0.5, 2.5, 2 ** 53 + 2, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY,
  'bogus', '', '1e12', true, false, null, [], [''], {}, { bogus: 1 },
];

type Path = (string | number)[];

/** Every key path of an object tree (objects and arrays, and their leaves). */
function paths(value: unknown, prefix: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...paths(child, [...prefix, key])]);
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** One to three mutations of `config` (a parsed YAML object), chosen by `seed`. */
export function mutateConfig(config: unknown, seed: number): Mutant {
  const rng = Rng.derive(seed, 'mutate-config');
  const mutant = clone(config) as Record<string, unknown>;
  const changes: string[] = [];
  const count = 1 + rng.int(3);
  for (let i = 0; i < count; i++) {
    const all = paths(mutant);
    if (all.length === 0) break;
    const path = rng.pick(all);
    const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], mutant);
    const key = path.at(-1)!;
    const where = path.join('.');
    if (rng.int(4) === 0) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      changes.push(`delete ${where}`);
    } else {
      const value = clone(rng.pick(REPLACEMENTS));
      parent[key] = value;
      changes.push(`${where} = ${describe(value)}`);
    }
  }
  return { config: mutant, change: changes.join('; ') };
}

function describe(value: unknown): string {
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : JSON.stringify(value);
}
