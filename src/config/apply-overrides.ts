/**
 * `--set a.b=c` overrides. The value is read as a YAML scalar or flow collection, so
 * `--set rollout.k=8`, `--set advantage.filter_zero_variance=true` and `--set rollout.stop=[]`
 * give a number, a boolean and a list. A key that does not exist is NOT rejected here: it is
 * written into the object and the schema rejects it with the same message as in a file.
 */
import YAML from 'yaml';
import { TroupeError } from '../util/errors.js';
import type { Override } from './resolve-config.js';

const KEY = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;

export function parseOverride(text: string): Override {
  const eq = text.indexOf('=');
  const key = eq < 0 ? '' : text.slice(0, eq).trim();
  if (!KEY.test(key)) {
    throw new TroupeError('config', `--set ${text}: expected key=value with a dotted key, e.g. --set rollout.k=8`);
  }
  let value: unknown;
  try {
    value = YAML.parse(text.slice(eq + 1));
  } catch (error) {
    throw new TroupeError('config', `--set ${text}: the value is not valid YAML (${(error as Error).message.split('\n')[0]})`);
  }
  return { key, value, text };
}

/** Returns a copy of `object` with every override applied in order (later ones win). */
export function applyOverrides(object: Record<string, unknown>, overrides: readonly Override[]): Record<string, unknown> {
  const root = structuredClone(object);
  for (const override of overrides) {
    const parts = override.key.split('.');
    let node: Record<string, unknown> = root;
    parts.slice(0, -1).forEach((part, i) => {
      const next = node[part];
      if (next === undefined || next === null) {
        node[part] = {};
      } else if (typeof next !== 'object' || Array.isArray(next)) {
        const at = parts.slice(0, i + 1).join('.');
        throw new TroupeError('config', `--set ${override.text}: ${at} is ${JSON.stringify(next)}, not a section with keys`);
      }
      node = node[part] as Record<string, unknown>;
    });
    node[parts[parts.length - 1]!] = override.value;
  }
  return root;
}
