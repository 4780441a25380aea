/**
 * A one-line summary of a Python traceback for failure reasons: `syntax error at line 2:
 * '(' was never closed`, or `NameError: name 'x' is not defined (line 3)`. The line is the
 * last one the traceback names in the model's own file (frames of `<string>` and other
 * pseudo-files are the sandbox's launchers, not the program).
 */
const SYNTAX = /^(SyntaxError|IndentationError|TabError): (.*)$/;

export function pythonErrorSummary(stderr: string): string {
  const lines = stderr.trim().split('\n');
  const last = lines.at(-1)?.trim() ?? '';
  const frames = [...stderr.matchAll(/File "([^"]+)", line (\d+)/g)].filter((m) => !m[1]!.startsWith('<'));
  const line = frames.at(-1)?.[2];
  const syntax = SYNTAX.exec(last);
  if (syntax) return `syntax error${line ? ` at line ${line}` : ''}: ${syntax[2]}`.slice(0, 160);
  if (last === '') return 'no error message';
  return `${last}${line ? ` (line ${line})` : ''}`.slice(0, 160);
}
