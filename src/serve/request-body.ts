/**
 * A request body checked against a zod schema, with the OpenAI server's refusals: the first
 * problem becomes a 400 ApiError whose `param` is the field's path (`messages[0].content`)
 * and whose message says what the field takes and what it got. The schemas say it with
 * `field(schema, 'an integer from 1 to 256')`, so every way a value can be wrong (type,
 * range, format) gets that one sentence rather than zod's generic wording.
 *
 * ```ts
 * const Body = z.looseObject({ n: field(z.number().int().min(1), 'a positive integer') });
 * parseBody(Body, { n: 0 }, {});   // throws 400 "n: expected a positive integer, got 0", param n
 * ```
 */
import { z } from 'zod';
import { ApiError, badParam } from './api-error.js';

/** JSON text of a value as the client sent it, cut to `max` characters. */
export function describe(value: unknown, max = Infinity): string {
  return (JSON.stringify(value) ?? String(value)).slice(0, max);
}

function withError<T extends z.ZodType>(schema: T, error: (issue: { input?: unknown }) => string): T {
  return schema.clone({ ...schema.def, error } as T['_zod']['def']) as T;
}

/**
 * `schema`, refused with "expected <allowed>, got <the value>" (cut to `shown` characters).
 * The sentence covers the schema's own checks; a nested schema (an array's items, an
 * object's fields) is refused by its own `field`, at its own path.
 */
export function field<T extends z.ZodType>(schema: T, allowed: string, shown?: number): T {
  return withError(schema, (issue) => `expected ${allowed}, got ${describe(issue.input, shown)}`);
}

/**
 * `schema` refused as a whole, at this path, with `message(value)`: for a field of several
 * forms (a string or a list of strings), where zod would report a problem inside the one form
 * that nearly fits and the client is better told every form it may send.
 */
export function wholeField<T extends z.ZodType>(schema: T, message: (value: unknown) => string) {
  // optional() so that a missing key reaches `schema` too: it decides whether absence is allowed.
  return z.unknown().optional().transform((value, ctx): z.output<T> => {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    ctx.addIssue({ code: 'custom', message: message(value), input: value });
    return z.NEVER;
  });
}

/** A whole body: a JSON object, whatever fields it has beyond `shape`. */
export function bodyObject<S extends z.core.$ZodLooseShape>(shape: S) {
  return z.looseObject(shape, { error: (issue) => `the request body must be a JSON object, got ${describe(issue.input, 40)}` });
}

/** A zod issue path as a client writes it: `messages[0].content`. */
export function pathText(path: readonly PropertyKey[]): string {
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join('');
}

/**
 * The parsed body, or a 400 for its first problem. `codes` gives the OpenAI error code of a
 * top-level field whose refusal is not `invalid_value` (`missing_model`, `unsupported_parameter`).
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, codes: Readonly<Record<string, string>>): z.output<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.path.length === 0) throw new ApiError(400, issue.message);
  throw badParam(pathText(issue.path), issue.message, codes[String(issue.path[0])]);
}
