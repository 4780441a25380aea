/**
 * Typed readers of one JSON field of a Tinker request. Each returns the value or throws a 400
 * naming the field (with its path, e.g. `adam_params.beta1`), the value and what is allowed,
 * so no badly typed value reaches the engine (where it would become NaN or an internal error).
 *
 *   const beta1 = num(adam, 'adam_params.beta1', 'beta1', { min: 0, below: 1, fallback: 0.9 });
 */
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

/** `body[key]` as an object (missing or null: `{}`); `path` names it in errors. */
export function object(body: Body, path: string, key: string): Body {
  const value = body[key];
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw badField(path, `must be a JSON object, got ${describe(value)}`);
  return value;
}

/** A required non-empty string of at most `maxLength` characters. */
export function text(body: Body, path: string, key: string, maxLength = 1024): string {
  const value = body[key];
  if (typeof value !== 'string' || value.length === 0) throw badField(path, `must be a non-empty string, got ${describe(value)}`);
  if (value.length > maxLength) throw badField(path, `has ${value.length} characters; at most ${maxLength} are allowed`);
  return value;
}

/** An optional string (missing or null: undefined). */
export function optionalText(body: Body, path: string, key: string, maxLength = 1024): string | undefined {
  return body[key] === undefined || body[key] === null ? undefined : text(body, path, key, maxLength);
}

export function bool(body: Body, path: string, key: string, fallback: boolean): boolean {
  const value = body[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw badField(path, `must be true or false, got ${describe(value)}`);
  return value;
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

function inRange(x: number, r: NumberRange): boolean {
  return !((r.min !== undefined && x < r.min) || (r.above !== undefined && x <= r.above) || (r.max !== undefined && x > r.max) || (r.below !== undefined && x >= r.below));
}

/** A finite number in range; `fallback` when missing or null (required when there is none). */
export function num(body: Body, path: string, key: string, range: NumberRange & { fallback?: number } = {}): number {
  const value = body[key];
  if ((value === undefined || value === null) && range.fallback !== undefined) return range.fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw badField(path, `must be a finite number${rangeText(range) ? ` ${rangeText(range)}` : ''}, got ${describe(value)}`);
  if (!inRange(value, range)) throw badField(path, `must be ${rangeText(range)}, got ${describe(value)}`);
  return value;
}

/** An integer in range; `fallback` when missing or null (required when there is none). */
export function int(body: Body, path: string, key: string, range: NumberRange & { fallback?: number } = {}): number {
  const value = body[key];
  if ((value === undefined || value === null) && range.fallback !== undefined) return range.fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw badField(path, `must be an integer${rangeText(range) ? ` ${rangeText(range)}` : ''}, got ${describe(value)}`);
  if (!inRange(value, range)) throw badField(path, `must be ${rangeText(range)}, got ${describe(value)}`);
  return value;
}

/** An optional integer (missing or null: undefined). */
export function optionalInt(body: Body, path: string, key: string, range: NumberRange = {}): number | undefined {
  return body[key] === undefined || body[key] === null ? undefined : int(body, path, key, range);
}

/** `seq_id`: absent/null (no ordering) or a positive integer, checked on arrival. */
export function seqId(body: Body): number | undefined {
  return optionalInt(body, 'seq_id', 'seq_id', { min: 1, max: Number.MAX_SAFE_INTEGER });
}
