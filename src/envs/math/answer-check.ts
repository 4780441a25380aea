/**
 * Compares final answers the way a math grader would: `1/2`, `0.5`, `\frac{1}{2}`, `\dfrac12`,
 * `$\boxed{\left(\frac{1}{2}\right)}$` and `x = 0.5` are all the same answer. Numbers are
 * compared exactly as fractions (BigInt), with a 1e-9 relative tolerance only when a side was
 * written as a long decimal (a program printing 1/3 prints 0.3333333333333333). Text that is
 * not a number (tuples, expressions, words) is compared after normalisation.
 */

/** The content of the last `\boxed{...}` (or `\fbox{...}`) in a text, braces balanced. */
export function extractBoxed(text: string): string | undefined {
  const at = Math.max(text.lastIndexOf('\\boxed'), text.lastIndexOf('\\fbox'));
  if (at < 0) return undefined;
  const open = text.indexOf('{', at);
  if (open < 0) {
    // `\boxed 5` (no braces): the next token.
    const m = /^\\(?:boxed|fbox)\s+([^\s$]+)/.exec(text.slice(at));
    return m?.[1];
  }
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(open + 1, i);
  }
  return undefined;
}

/** Removes the inside of one-argument commands like `\text{...}` but keeps the argument. */
function unwrapCommand(text: string, name: string): string {
  let out = text;
  for (let at = out.indexOf(`\\${name}{`); at >= 0; at = out.indexOf(`\\${name}{`)) {
    const open = at + name.length + 1;
    let depth = 0;
    let close = -1;
    for (let i = open; i < out.length; i++) {
      if (out[i] === '{') depth++;
      else if (out[i] === '}' && --depth === 0) {
        close = i;
        break;
      }
    }
    if (close < 0) break;
    out = out.slice(0, at) + out.slice(open + 1, close) + out.slice(close + 1);
  }
  return out;
}

/** Normalised text of an answer: LaTeX wrappers, spacing, units and thousands commas removed. */
export function normalizeAnswer(raw: string): string {
  let text = extractBoxed(raw) ?? raw;
  text = text.trim().replace(/^\$+|\$+$/g, '').replace(/\\\(|\\\)|\\\[|\\\]/g, '');
  text = extractBoxed(text) ?? text;
  for (const name of ['text', 'textbf', 'mathrm', 'mathbf', 'mbox']) text = unwrapCommand(text, name);
  text = text
    .replace(/\\[dt]frac/g, '\\frac')
    .replace(/\\left|\\right/g, '')
    .replace(/\\[,;:! ]/g, '')
    .replace(/\^\s*\{?\\circ\}?|°/g, '')
    .replace(/\\%|%/g, '')
    .replace(/\\cdot|\\times/g, '*')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\.$/, '');
  // `x = 5` -> `5` (a single final assignment).
  const eq = /^[a-zA-Z]\s*=\s*(.+)$/.exec(text);
  if (eq) text = eq[1]!;
  // \frac{a}{b} -> (a)/(b); \frac12 -> (1)/(2).
  text = text.replace(/\\frac\{([^{}]*)\}\{([^{}]*)\}/g, '($1)/($2)').replace(/\\frac(\d)(\d)/g, '($1)/($2)');
  // 1,000,000 -> 1000000 (only well-formed thousands groups).
  text = text.replace(/\d{1,3}(?:,\d{3})+(?![\d])/g, (m) => m.replace(/,/g, ''));
  // Trailing units: `12 apples`, `5 cm` -> the number.
  const units = /^(-?[\d.]+(?:\s*\/\s*[\d.]+)?)\s*[a-zA-Z][a-zA-Z ]*$/.exec(text);
  if (units) text = units[1]!;
  text = text.replace(/\s+/g, '');
  // Parentheses around the whole answer or around a plain number.
  text = text.replace(/\((-?[\d.]+)\)/g, '$1');
  while (/^\((.*)\)$/.test(text) && balanced(text.slice(1, -1))) text = text.slice(1, -1);
  return text.replace(/^\{(.*)\}$/, '$1').toLowerCase();
}

function balanced(text: string): boolean {
  let depth = 0;
  for (const c of text) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/** An exact fraction. */
export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
  /** Written as a decimal with many digits (float output): compare with a tolerance. */
  readonly inexact: boolean;
}

function parseDecimal(text: string): Rational | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const frac = m[3] ?? '';
  const den = 10n ** BigInt(frac.length);
  const num = BigInt((m[2] || '0') + frac) * (m[1] === '-' ? -1n : 1n);
  return { num, den, inexact: frac.length >= 6 };
}

/** The number an answer denotes (integer, decimal, fraction, signed), or undefined. */
export function parseRational(raw: string): Rational | undefined {
  const text = normalizeAnswer(raw);
  const sign = text.startsWith('-') ? -1n : 1n;
  const body = text.replace(/^[+-]/, '');
  const parts = body.split('/');
  if (parts.length > 2) return undefined;
  const a = parseDecimal(parts[0]!);
  const b = parts.length === 2 ? parseDecimal(parts[1]!) : { num: 1n, den: 1n, inexact: false };
  if (!a || !b || b.num === 0n) return undefined;
  let num = sign * a.num * b.den;
  let den = a.den * b.num;
  if (den < 0n) [num, den] = [-num, -den];
  return { num, den, inexact: a.inexact || b.inexact };
}

/** True when two answers are the same (see the file comment for what counts as the same). */
export function answersEqual(a: string, b: string): boolean {
  const x = parseRational(a);
  const y = parseRational(b);
  if (x && y) {
    if (x.num * y.den === y.num * x.den) return true;
    if (!x.inexact && !y.inexact) return false;
    const fx = Number(x.num) / Number(x.den);
    const fy = Number(y.num) / Number(y.den);
    return Math.abs(fx - fy) <= 1e-9 * Math.max(1, Math.abs(fx), Math.abs(fy));
  }
  const nx = normalizeAnswer(a);
  return nx !== '' && nx === normalizeAnswer(b);
}
