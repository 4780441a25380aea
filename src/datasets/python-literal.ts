/** Python source for plain JSON-like values (ints, strings, lists, booleans) in generated tests. */
export function pythonLiteral(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`;
  throw new TypeError(`no Python literal for ${String(value)}`);
}
