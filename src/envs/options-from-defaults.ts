/**
 * A task's options schema from plain defaults, so a user task needs no zod of its own:
 * `{ max: 9, names: ['A', 'B'], verbose: false }` accepts exactly those keys, each of its
 * default's type (whole numbers stay whole), and fills the defaults.
 */
import { z } from 'zod';
import { TroupeError } from '../util/errors.js';

export type OptionValue = number | string | boolean | readonly (number | string | boolean)[];

function schemaOf(key: string, value: OptionValue): z.ZodType {
  if (typeof value === 'number') return (Number.isInteger(value) ? z.number().int() : z.number()).default(value);
  if (typeof value === 'string') return z.string().default(value);
  if (typeof value === 'boolean') return z.boolean().default(value);
  if (Array.isArray(value)) {
    const kinds = new Set(value.map((v) => typeof v));
    const item = kinds.size === 1 && kinds.has('number') ? z.number() : kinds.size === 1 && kinds.has('boolean') ? z.boolean() : z.string();
    return z.array(item).default([...value] as never);
  }
  throw new TroupeError('config', `task option ${key}: a default must be a number, string, boolean or a list of them, got ${JSON.stringify(value)}; give an optionsSchema (zod, re-exported as z by troupe) for anything richer`);
}

/** A strict zod object whose keys are `defaults`' keys, each defaulting to its value. */
export function optionsFromDefaults<O extends Record<string, OptionValue>>(defaults: O): z.ZodType<O> {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, value] of Object.entries(defaults)) shape[key] = schemaOf(key, value);
  return z.strictObject(shape) as unknown as z.ZodType<O>;
}
