/**
 * The zod building blocks of the Tinker server's request schemas (the OpenAI server's are in
 * ../request-body.ts: one validation library for both). Each block refuses in the server's own
 * words, what the field takes and what it got, and `parseTinker` turns the first problem into
 * a 400 naming the field by its path (`adam_params.beta1`), so no badly typed value reaches
 * the engine (where it would become NaN or an internal error).
 *
 *   const Adam = z.looseObject({ beta1: withDefault(finite({ min: 0, below: 1 }), 0.9) });
 *   parseTinker(z.looseObject({ adam_params: section(Adam.shape) }), { adam_params: { beta1: 2 } });
 *   // throws 400 "adam_params.beta1: must be >= 0 and < 1, got 2"
 */
import { z } from 'zod';
import { pathText } from '../request-body.js';
import { badField, TinkerApiError } from './tinker-api-error.js';

export type Body = Record<string, unknown>;

/** JSON text of a value for a message, cut short (a hostile value may be huge). */
export function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** One percent-encoded part of a URL path (a session, sampler or run id), or a 400 when it is malformed. */
export function pathPart(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new TinkerApiError(400, `the URL path part ${describe(raw)} is not valid percent-encoding (each % must start a UTF-8 byte as two hex digits); encode the id with encodeURIComponent`);
  }
}

export function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The parsed value, or a 400 for its first problem: `<path>: <sentence>`, or the sentence
 * alone for a problem of the whole value (a check that names its own datum or fields).
 */
export function parseTinker<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw issue.path.length === 0 ? new TinkerApiError(400, issue.message) : badField(pathText(issue.path), issue.message);
}

export interface NumberRange {
  readonly min?: number;
  /** Exclusive lower bound. */
  readonly above?: number;
  readonly max?: number;
  /** Exclusive upper bound. */
  readonly below?: number;
  /** What `max` is (e.g. the server option that sets it), for the message. */
  readonly maxIs?: string;
}

function rangeText(r: NumberRange): string {
  const low = r.min !== undefined ? `>= ${r.min}` : r.above !== undefined ? `> ${r.above}` : '';
  const high = r.max !== undefined ? `<= ${r.max}${r.maxIs ? ` (${r.maxIs})` : ''}` : r.below !== undefined ? `< ${r.below}` : '';
  return [low, high].filter(Boolean).join(' and ');
}

function ranged(schema: z.ZodNumber, r: NumberRange): z.ZodNumber {
  let s = schema;
  if (r.min !== undefined) s = s.min(r.min);
  if (r.above !== undefined) s = s.gt(r.above);
  if (r.max !== undefined) s = s.max(r.max);
  if (r.below !== undefined) s = s.lt(r.below);
  return s;
}

/** A number of `kind` in `range`: a wrong type says what is wanted, a wrong value the range. */
function numberIn(kind: 'a finite number' | 'an integer', range: NumberRange, integer: boolean): z.ZodNumber {
  const bounds = rangeText(range);
  const wanted = `must be ${kind}${bounds ? ` ${bounds}` : ''}`;
  const base = z.number({
    // An integer past 2^53 is refused by .int() with origin 'int': a wrong type, like 1.5.
    error: (issue) => `${issue.code === 'invalid_type' || issue.origin === 'int' ? wanted : `must be ${bounds}`}, got ${describe(issue.input)}`,
  });
  return ranged(integer ? base.int() : base, range);
}

/** A finite number in range (NaN and Infinity are refused: they do not survive JSON anyway). */
export function finite(range: NumberRange = {}): z.ZodNumber {
  return numberIn('a finite number', range, false);
}

/** A safe integer in range. */
export function integer(range: NumberRange = {}): z.ZodNumber {
  return numberIn('an integer', range, true);
}

/** A non-empty string of at most `maxLength` characters. */
export function text(maxLength = 1024): z.ZodString {
  return z
    .string({
      error: (issue) =>
        (issue.code as string) === 'too_big' ? `has ${(issue.input as string).length} characters; at most ${maxLength} are allowed` : `must be a non-empty string, got ${describe(issue.input)}`,
    })
    .min(1)
    .max(maxLength);
}

/** true or false. */
export const flag = z.boolean({ error: (issue) => `must be true or false, got ${describe(issue.input)}` });

/** `schema`, or `fallback` when the field is missing or null (as the SDK sends "not given"). */
export function withDefault<T extends z.ZodType>(schema: T, fallback: z.output<T>) {
  return schema.nullish().transform((value): z.output<T> => (value ?? fallback) as z.output<T>);
}

/** `schema`, or undefined when the field is missing or null. */
export function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value): z.output<T> | undefined => (value ?? undefined) as z.output<T> | undefined);
}

/** A nested JSON object of `shape` (missing or null: `{}`, so its fields take their defaults). */
export function section<S extends z.core.$ZodLooseShape>(shape: S) {
  return z.preprocess(
    (value) => value ?? {},
    z.looseObject(shape, { error: (issue) => `must be a JSON object, got ${describe(issue.input)}` }),
  );
}

/** `seq_id` of a training op: absent/null (no ordering) or a positive integer, checked on arrival. */
export const seqId = optional(integer({ min: 1, max: Number.MAX_SAFE_INTEGER }));

/** A body whose one required field is the string `key` (model_id, session_id, request_id, ...). */
export function idBody<K extends string>(key: K, maxLength = 1024) {
  return z.looseObject({ [key]: text(maxLength) } as Record<K, z.ZodString>);
}
