/**
 * The Python harness that checks a HumanEval-style program one assert at a time. It runs
 * INSIDE the sandbox (as /box/main.py) next to `program.py` (prompt + completion), `test.py`
 * (the dataset's `check`) and `entry.txt` (the entry point's name).
 *
 * It rewrites every non-constant `assert T, M` of the test source into
 *
 *     try: ok = bool(T)
 *     except BaseException: ok = False
 *     record(k, ok)
 *
 * so a failing assert does not stop the check, then runs the program and `check(candidate)`
 * in one namespace (as HumanEval's own evaluator does; tests may call helpers from the
 * prompt). Results stream to fd 3 one line at a time, so asserts that finished before a
 * timeout or crash still count. Protocol (parsed by run-humaneval.ts):
 *
 *     T <total>            number of counted assert statements
 *     D ok | D fail <msg>  prompt + completion compiled and ran (or why not)
 *     A <k> <1|0>          assert k held on its first run (1) / failed on some run (0)
 *     C fail <msg>         a statement of check other than an assert raised
 *     E                    check returned
 *
 * The harness shares its interpreter with the model's code, so a program that deliberately
 * writes these lines to fd 3 can forge them; see docs/sandbox.md ("what it does not").
 */
export const ASSERT_HARNESS = String.raw`
import ast, os, sys

def _troupe_main():
    chan = os.fdopen(3, 'w', buffering=1)
    def emit(line):
        chan.write(line.replace('\n', ' ')[:500] + '\n')
        chan.flush()

    with open('test.py') as f:
        test_src = f.read()
    with open('program.py') as f:
        program_src = f.read()
    with open('entry.txt') as f:
        entry = f.read().strip()

    status = {}
    def record(k, ok):
        before = status.get(k)
        if before is None or (before and not ok):
            status[k] = ok
            emit('A %d %d' % (k, 1 if ok else 0))

    class Instrument(ast.NodeTransformer):
        count = 0
        def visit_Assert(self, node):
            if isinstance(node.test, ast.Constant):
                return node
            k = Instrument.count
            Instrument.count += 1
            ok = ast.Name('_troupe_ok', ast.Store())
            guarded = ast.Try(
                body=[ast.Assign([ok], ast.Call(ast.Name('bool', ast.Load()), [node.test], []))],
                handlers=[ast.ExceptHandler(ast.Name('BaseException', ast.Load()), None,
                                            [ast.Assign([ast.Name('_troupe_ok', ast.Store())], ast.Constant(False))])],
                orelse=[], finalbody=[])
            call = ast.Expr(ast.Call(ast.Name('_troupe_record', ast.Load()),
                                     [ast.Constant(k), ast.Name('_troupe_ok', ast.Load())], []))
            return [ast.copy_location(guarded, node), ast.copy_location(call, node)]

    try:
        tree = Instrument().visit(ast.parse(test_src, 'test.py'))
        test_code = compile(ast.fix_missing_locations(tree), 'test.py', 'exec')
    except BaseException as e:
        emit('C fail test source does not compile: %r' % (e,))
        return
    emit('T %d' % Instrument.count)

    ns = {'__name__': 'program'}
    try:
        exec(compile(program_src, 'program.py', 'exec'), ns)
    except BaseException as e:
        emit('D fail %s: %s' % (type(e).__name__, e))
        return
    emit('D ok')
    ns['_troupe_record'] = record
    try:
        exec(test_code, ns)
        ns['check'](ns[entry])
    except BaseException as e:
        emit('C fail %s: %s' % (type(e).__name__, e))
        return
    emit('E')

_troupe_main()
`;
