/**
 * Writes plain JSON-like data as a Python literal (for the init's configuration argument,
 * which the init reads with `eval` and no builtins: cheaper to start than importing json).
 * JSON string syntax is valid Python string syntax, so strings go through JSON.stringify.
 */
export function toPythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`toPythonLiteral: ${value} has no Python literal`);
    return String(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(toPythonLiteral).join(', ')}]`;
  if (typeof value === 'object') {
    const items = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `${JSON.stringify(k)}: ${toPythonLiteral(v)}`,
    );
    return `{${items.join(', ')}}`;
  }
  throw new TypeError(`toPythonLiteral: unsupported ${typeof value}`);
}
