/**
 * Typed overrides (`{ train: { steps: 40 } }`) as the `--set` overrides they stand for
 * (`train.steps=40`), so both kinds go through one path (applyOverrides, then the schema) and
 * give the same errors. Plain objects are walked; anything else (numbers, strings, arrays)
 * replaces the key whole.
 *
 * ```ts
 * flattenOverrides({ train: { steps: 40 }, rollout: { stop: [] } });
 * // [{ key: 'train.steps', value: 40, text: 'train.steps=40' }, { key: 'rollout.stop', value: [], text: 'rollout.stop=[]' }]
 * ```
 */
import type { Override } from './resolve-config.js';

export function flattenOverrides(overrides: object, prefix = ''): Override[] {
  const out: Override[] = [];
  for (const [name, value] of Object.entries(overrides)) {
    const key = prefix ? `${prefix}.${name}` : name;
    if (value === undefined) continue;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) out.push(...flattenOverrides(value, key));
    else out.push({ key, value, text: `${key}=${JSON.stringify(value)}` });
  }
  return out;
}
