/**
 * A small well-formedness check for the markup the report writes: every non-void tag is
 * closed in order, attributes are quoted. Not a full HTML parser; enough to catch an
 * unclosed `<g>` or a stray `<` from unescaped text.
 */
const VOID = new Set(['meta', 'br', 'hr', 'img', 'input', 'link']);

export function checkMarkup(html: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  const body = html.replace(/^<!doctype html>/i, '');
  const tag = /<(\/?)([a-zA-Z][\w-]*)((?:\s+[\w:-]+(?:="[^"<>]*")?)*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(body); m !== null; m = tag.exec(body)) {
    const between = body.slice(last, m.index);
    if (between.includes('<') || between.includes('>')) problems.push(`stray angle bracket near ${JSON.stringify(between.slice(0, 60))}`);
    last = tag.lastIndex;
    const [, closing, name, , selfClosing] = m;
    const lower = name!.toLowerCase();
    if (closing) {
      const open = stack.pop();
      if (open !== lower) problems.push(`</${lower}> closes <${open ?? 'nothing'}>`);
    } else if (!selfClosing && !VOID.has(lower)) {
      stack.push(lower);
    }
  }
  const rest = body.slice(last);
  if (rest.includes('<') || rest.includes('>')) problems.push('stray angle bracket at the end');
  if (stack.length > 0) problems.push(`unclosed: ${stack.join(', ')}`);
  return problems;
}
