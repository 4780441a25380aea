// The pure parts of the natural tool role: reading the program out of an answer, reading the
// program's output as moves, failure reasons, and how a run looks in the plan prompt. The
// sandboxed runs themselves are tested in plan-path-natural.test.ts and the task suites.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMoveOutput } from './parse-moves.js';
import { programLines } from './program-prompt.js';
import { parseProgram, runFailure } from './program-tool.js';

describe('parseProgram', () => {
  it('takes the last ```python block, else the last fenced block', () => {
    const text = 'Plan:\n```python\nprint(1)\n```\nBetter:\n```python\nprint("U R")\n```\nOutput:\n```\nU R\n```\n';
    assert.deepEqual(parseProgram(text), { ok: true, action: 'print("U R")\n' });
    assert.deepEqual(parseProgram('```\nprint(2)\n```'), { ok: true, action: 'print(2)\n' });
    assert.deepEqual(parseProgram('```py\n\n  x = 1\nprint(x)   \n```'), { ok: true, action: '  x = 1\nprint(x)\n' });
  });

  it('a block cut off by the token limit runs to the end', () => {
    assert.deepEqual(parseProgram('```python\nprint("L")\nprint("R")'), { ok: true, action: 'print("L")\nprint("R")\n' });
  });

  it('no fence or an empty block is a failure with a reason', () => {
    const bare = parseProgram('print("U")');
    assert.equal(bare.ok, false);
    assert.match(bare.ok ? '' : bare.reason, /^no program: .*```python/);
    const empty = parseProgram('```python\n   \n```');
    assert.equal(empty.ok, false);
    assert.match(empty.ok ? '' : empty.reason, /empty/);
  });
});

describe('parseMoveOutput', () => {
  const moves = (stdout: string, max = 20) => {
    const parsed = parseMoveOutput(stdout, max);
    return parsed.ok ? parsed.action.join('') : `fail: ${parsed.reason}`;
  };

  it('reads the natural formats programs print', () => {
    assert.equal(moves('U R R D\n'), 'URRD');
    assert.equal(moves("['U', 'R']\n"), 'UR');
    assert.equal(moves('RRDD\n'), 'RRDD');
  });

  it('one move a line is one list; debug lines before the answer leave the last line', () => {
    assert.equal(moves('U\nR\nR\n'), 'URR');
    assert.equal(moves('searching...\nfound 3 moves\nD L L\n'), 'DLL');
  });

  it('garbage, empty output and too many moves are failures with reasons', () => {
    assert.match(moves('hello world\n'), /^fail: unexpected word "hello"/);
    assert.match(moves(''), /^fail: no moves/);
    assert.match(moves('U\n'.repeat(21)), /^fail: too many moves: 21 > max 20/);
  });
});

describe('runFailure and programLines', () => {
  it('names the exit reason and the error line, or the limit that was hit', () => {
    const traceback = 'Traceback (most recent call last):\n  File "/box/main.py", line 1\nZeroDivisionError: division by zero\n';
    assert.equal(runFailure({ reason: 'error', stderr: traceback }), 'program error: ZeroDivisionError: division by zero');
    assert.equal(runFailure({ reason: 'timeout', stderr: '' }, { wallMs: 500 }), 'program timeout (limit 0.5 s)');
    assert.equal(runFailure({ reason: 'output-limit', stderr: '' }, { outputBytes: 1024 }), 'program output-limit (limit 1024 bytes)');
    assert.ok(runFailure({ reason: 'error', stderr: `ValueError: ${'x'.repeat(500)}` }).length < 200);
  });

  it('shows the program, its output and, for a failed run, the error output', () => {
    const ok = programLines({ code: 'print("U")\n', reason: 'ok', output: 'U', stderr: '' }).join('\n');
    assert.equal(ok, 'The tool agent wrote this program:\n```python\nprint("U")\n```\nIt ran to the end.\nIt printed:\n```\nU\n```');
    const failed = programLines({ code: '1/0\n', reason: 'error', output: '', stderr: 'ZeroDivisionError: division by zero' }).join('\n');
    assert.match(failed, /It did not finish normally \(error\)\.\nIt printed nothing\.\nIts error output ends with:\n```\nZeroDivisionError/);
    const code = 'x = 1\n'.repeat(2000);
    const long = programLines({ code, reason: 'ok', output: '', stderr: '' }).join('\n');
    assert.ok(long.length < 4500, `${long.length} characters shown`);
    assert.ok(long.includes(`program cut here: ${code.trimEnd().length} characters in all`));
  });
});
