/**
 * Turns zod issues into messages a user can act on: the key path, what is allowed, what was
 * given (`team.order: expected one of sequential | parallel, got "paralel"`). Unknown keys
 * list the keys allowed at that place, read from the schema itself so the list cannot drift.
 */
import type { z } from 'zod';

type Path = ReadonlyArray<PropertyKey>;

export function pathText(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('') || '(top level)';
}

function valueAt(input: unknown, path: Path): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key as string];
  }
  return value;
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const typeNames: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping of keys',
};

/** Zod internals we read to list allowed keys: wrappers expose innerType, objects a shape. */
interface SchemaDef {
  type?: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
}

function defOf(schema: z.ZodType | undefined): SchemaDef | undefined {
  return (schema as unknown as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def;
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(current);
    const next = def?.innerType ?? (def?.type === 'pipe' ? def.in : undefined);
    if (!next) return current;
    current = next;
  }
  return current;
}

/** The keys the schema allows at `path`, or undefined when the schema cannot tell. */
export function allowedKeys(schema: z.ZodType, path: Path): string[] | undefined {
  let current = unwrap(schema);
  for (const key of path) {
    const def = defOf(current);
    if (def?.type === 'object' && def.shape) current = unwrap(def.shape[String(key)]);
    else if (def?.type === 'array' && typeof key === 'number') current = unwrap(def.element);
    else return undefined;
  }
  const def = defOf(current);
  return def?.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}

/** Zod's own messages start like this; anything else was written by the schema's author. */
const ZOD_DEFAULT_MESSAGE = /^(Invalid|Too (small|big)|Unrecognized key|Expected)/;

/** One message per issue (unknown keys: one per key). `prefix` is prepended to every path. */
export function formatIssues(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  schema: z.ZodType,
  prefix: Path = [],
): Array<{ path: string; message: string }> {
  const out: Array<{ path: string; message: string }> = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const got = valueAt(input, issue.path);
    if (issue.code !== 'unrecognized_keys' && issue.code !== 'custom' && !ZOD_DEFAULT_MESSAGE.test(issue.message)) {
      // A task's own message usually says how to fix the value: keep it.
      out.push({ path: pathText(path), message: `${issue.message} (got ${show(got)})` });
      continue;
    }
    switch (issue.code) {
      case 'unrecognized_keys': {
        const allowed = allowedKeys(schema, issue.path);
        for (const key of issue.keys) {
          out.push({
            path: pathText([...path, key]),
            message: `unknown key${allowed ? `; allowed keys here: ${allowed.join(', ')}` : ''}`,
          });
        }
        break;
      }
      case 'invalid_value':
        out.push({
          path: pathText(path),
          message: `expected ${issue.values.length === 1 ? show(issue.values[0]) : `one of ${issue.values.map(String).join(' | ')}`}, got ${show(got)}`,
        });
        break;
      case 'invalid_type':
        out.push({
          path: pathText(path),
          message:
            got === undefined
              ? `missing (expected ${typeNames[issue.expected] ?? issue.expected})`
              : `expected ${typeNames[issue.expected] ?? issue.expected}, got ${show(got)}`,
        });
        break;
      case 'too_small':
      case 'too_big': {
        const sign = issue.code === 'too_small' ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
        const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
        const what = issue.origin === 'array' || issue.origin === 'string' ? `${issue.origin} length` : issue.origin;
        out.push({ path: pathText(path), message: `expected ${what} ${sign} ${String(bound)}, got ${show(got)}` });
        break;
      }
      case 'custom':
        out.push({ path: pathText(path), message: issue.message });
        break;
      default:
        out.push({ path: pathText(path), message: `${issue.message}, got ${show(got)}` });
    }
  }
  return out;
}
