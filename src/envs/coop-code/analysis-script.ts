/**
 * The Python that checks an aux + main pair INSIDE the sandbox with Python's own `ast` (never
 * with regexes in Troupe): it reads `aux.py`, `main_fn.py`, `prefix.py` (the problem's prompt:
 * imports and helpers the tests may need) and `entry.txt`, writes one line
 *
 *     S {"aux_defined": ..., "main_defined": ..., "syntax_ok": ..., "calls_aux": ...,
 *        "thin_wrapper": ..., "discarded": ..., "asserts": [...]}
 *
 * on fd 3, then, if main is defined and the combined program compiles, writes `program.py`
 * (prefix + aux + main) and falls through into the sandbox's assert harness, which appends
 * its own T/D/A/C/E lines (src/sandbox/assert-harness.ts). `asserts` lists the source of
 * each counted assert of `check`, in the harness's numbering, for failing-test feedback.
 *
 * `aux_error` / `main_error` say why a part does not parse on its own and `syntax_error` why the
 * combined program does not compile (with the part and line), for the samples' failure reasons.
 *
 * Rules: a function "is defined with a return" when the module defines it at top level and
 * its body has a `return <value>`; main "calls aux" when any call in it is `aux(...)`; main
 * is a "thin wrapper" when its body (docstring aside) is the single statement
 * `return aux(...)`; aux's result is "discarded" when some `aux(...)` call is a statement of
 * its own.
 */
import { ASSERT_HARNESS } from '../../sandbox/assert-harness.js';

const ANALYSIS = String.raw`
import ast, json, os

def _troupe_analyse():
    def read(name):
        with open(name) as f:
            return f.read()
    aux_src, main_src, prefix, entry = read('aux.py'), read('main_fn.py'), read('prefix.py'), read('entry.txt').strip()

    def top_function(src, name):
        try:
            tree = ast.parse(src)
        except BaseException:
            return None
        found = None
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                found = node
        return found

    def has_return(fn):
        return fn is not None and any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(fn))

    def is_aux_call(node):
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == 'aux'

    def parse_problem(src):
        try:
            ast.parse(src)
            return None
        except SyntaxError as e:
            return 'syntax error at line %s: %s' % (e.lineno, e.msg)
        except BaseException as e:
            return '%s: %s' % (type(e).__name__, e)

    aux_fn = top_function(aux_src, 'aux')
    main_fn = top_function(main_src, entry)
    out = {'aux_defined': has_return(aux_fn), 'main_defined': has_return(main_fn), 'syntax_ok': False,
           'calls_aux': False, 'thin_wrapper': False, 'discarded': False, 'asserts': [],
           'aux_error': parse_problem(aux_src), 'main_error': parse_problem(main_src), 'syntax_error': None}
    program = prefix + '\n' + aux_src + '\n' + main_src
    aux_start = prefix.count('\n') + 2
    main_start = aux_start + aux_src.count('\n') + 1
    try:
        compile(program, 'program.py', 'exec')
        out['syntax_ok'] = True
    except SyntaxError as e:
        line = e.lineno or 0
        where = ('main line %d' % (line - main_start + 1) if line >= main_start else
                 'aux line %d' % (line - aux_start + 1) if line >= aux_start else 'line %d of the problem prompt' % line)
        out['syntax_error'] = 'the combined program does not compile: %s at %s' % (e.msg, where)
    except BaseException as e:
        out['syntax_error'] = 'the combined program does not compile: %s' % (type(e).__name__,)
    if main_fn is not None:
        out['calls_aux'] = any(is_aux_call(n) for n in ast.walk(main_fn))
        out['discarded'] = any(isinstance(n, ast.Expr) and is_aux_call(n.value) for n in ast.walk(main_fn))
        body = list(main_fn.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            body = body[1:]
        out['thin_wrapper'] = len(body) == 1 and isinstance(body[0], ast.Return) and is_aux_call(body[0].value)
    try:
        test_src = read('test.py')
        class Asserts(ast.NodeVisitor):
            def visit_Assert(self, node):
                if not isinstance(node.test, ast.Constant):
                    out['asserts'].append((ast.get_source_segment(test_src, node) or '')[:200])
        Asserts().visit(ast.parse(test_src))
    except BaseException:
        pass
    os.write(3, ('S ' + json.dumps(out) + '\n').encode())
    if not (out['main_defined'] and out['syntax_ok']):
        raise SystemExit(0)
    with open('program.py', 'w') as f:
        f.write(program)

_troupe_analyse()
`;

/** Analysis first, then (when main exists and the program compiles) the assert harness. */
export const COOP_SCRIPT = `${ANALYSIS}\n${ASSERT_HARNESS}`;

export interface CoopAnalysis {
  readonly aux_defined: boolean;
  readonly main_defined: boolean;
  readonly syntax_ok: boolean;
  readonly calls_aux: boolean;
  readonly thin_wrapper: boolean;
  readonly discarded: boolean;
  readonly asserts: readonly string[];
  /** Why aux's / main's own code does not parse (`syntax error at line 2: ...`), else null. */
  readonly aux_error?: string | null;
  readonly main_error?: string | null;
  /** Why the combined program does not compile (the part and its line), else null. */
  readonly syntax_error?: string | null;
}

/** The analysis line of a channel, or undefined when the script never got that far. */
export function readAnalysis(channel: string): CoopAnalysis | undefined {
  const line = channel.split('\n').find((l) => l.startsWith('S {'));
  if (!line) return undefined;
  try {
    return JSON.parse(line.slice(2)) as CoopAnalysis;
  } catch {
    return undefined;
  }
}
