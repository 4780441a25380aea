/**
 * Reads a program out of model text, tolerantly: the first fenced block tagged python/py
 * (else the first fenced block of any language); a block cut off by the token limit (no
 * closing fence) is taken to the end; text with no fence at all is taken whole, leading
 * indentation kept (a HumanEval completion starts with the indented body). Returns undefined
 * when nothing but whitespace is left.
 */
const FENCE = /```([\w+-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g;

export function extractCode(text: string): string | undefined {
  const blocks = [...text.matchAll(FENCE)].map((m) => ({ lang: (m[1] ?? '').toLowerCase(), body: m[2] ?? '' }));
  const chosen = blocks.find((b) => b.lang === 'python' || b.lang === 'py' || b.lang === 'python3') ?? blocks[0];
  const code = (chosen ? chosen.body : text).replace(/^(\s*\n)+/, '').replace(/\s+$/, '');
  return code.trim() === '' ? undefined : `${code}\n`;
}
