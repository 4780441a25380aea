import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { TroupeError } from '../util/errors.js';
import { readHumanEval, toHumanEvalRow } from './humaneval-problem.js';
import { readMathProblems } from './math-problem.js';
import { problemSet } from './problem-set.js';
import { toJsonl } from './read-jsonl.js';
import { readStdioProblems } from './stdio-problem.js';
import { solveSyntheticMath, syntheticMathProblem } from './synthetic-math.js';
import { recogniseFunctionPrompt, syntheticFunctionProblem } from './synthetic-functions.js';
import { recogniseStdioQuestion, syntheticStdioProblem } from './synthetic-stdio.js';
import { testDir } from '../util/test-dir.test-helper.js';

const dir = testDir('troupe-datasets-');
function file(name: string, text: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
function inputError(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof TroupeError && e.category === 'input' && pattern.test(e.message));
}

const heRow = { task_id: 'X/0', prompt: 'def f(x):\n', test: 'def check(c):\n    assert c(1) == 2\n', entry_point: 'f', canonical_solution: '    return x + 1\n' };

test('HumanEval reader: good lines, optional canonical solution, .gz and gzip magic', () => {
  const { canonical_solution: _, ...bare } = heRow;
  const text = `${JSON.stringify(heRow)}\n\n${JSON.stringify({ ...bare, task_id: 'X/1' })}\n`;
  for (const path of [file('he.jsonl', text), file('he.jsonl.gz', gzipSync(text)), file('he-gz-no-suffix.jsonl', gzipSync(text))]) {
    const problems = readHumanEval(path);
    assert.equal(problems.length, 2);
    assert.deepEqual(problems[0], { taskId: 'X/0', prompt: heRow.prompt, test: heRow.test, entryPoint: 'f', canonicalSolution: heRow.canonical_solution });
    assert.equal(problems[1]!.canonicalSolution, undefined);
    assert.deepEqual(toHumanEvalRow(problems[0]!), heRow);
  }
});

test('a bad line names the file and the line; a missing field names the field', () => {
  const bad = file('bad.jsonl', `${JSON.stringify(heRow)}\n{"task_id": oops}\n`);
  inputError(() => readHumanEval(bad), /bad\.jsonl:2: not valid JSON/);
  const missing = file('missing.jsonl', `${JSON.stringify(heRow)}\n\n${JSON.stringify({ ...heRow, entry_point: undefined })}\n`);
  inputError(() => readHumanEval(missing), /missing\.jsonl:3: field "entry_point" must be a string, it is missing/);
  inputError(() => readHumanEval(file('array.jsonl', '[1]\n')), /array\.jsonl:1: expected a JSON object/);
  const stdio = file('stdio.jsonl', `${JSON.stringify({ question: 'q', tests: [{ input: '1', output: '1' }] })}\n${JSON.stringify({ question: 'q', tests: [{ input: 1 }] })}\n`);
  inputError(() => readStdioProblems(stdio), /stdio\.jsonl:2: tests\[0\] must be/);
  inputError(() => readMathProblems(file('math.jsonl', '{"question": "q"}\n')), /math\.jsonl:1: field "answer"/);
});

test('a dataset that is not there is an io error naming the path, and the folder a relative path is read from', () => {
  const ioError = (path: string, pattern: RegExp) =>
    assert.throws(() => readHumanEval(path), (e: unknown) => e instanceof TroupeError && e.category === 'io' && pattern.test(e.message));
  ioError(join(dir, 'absent.jsonl'), /cannot read dataset .*absent\.jsonl: ENOENT.*check tasks\.path$/);
  const relative = 'no-such-folder/HumanEval.jsonl.gz';
  ioError(relative, new RegExp(`cannot read dataset ${relative}: .*relative to the current folder ${process.cwd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
});

test('stdio and math readers: good lines, ids default to the line number, numeric answers', () => {
  const stdio = readStdioProblems(file('s.jsonl', `${JSON.stringify({ question: 'add', tests: [{ input: '1 2\n', output: '3\n' }], solution: 'print(3)' })}\n`));
  assert.deepEqual(stdio, [{ id: 'line-1', question: 'add', tests: [{ input: '1 2\n', output: '3\n' }], solution: 'print(3)' }]);
  const math = readMathProblems(file('m.jsonl', `{"id": "a", "question": "1+1?", "answer": 2}\n{"question": "half?", "answer": "\\\\frac{1}{2}"}\n`));
  assert.deepEqual(math, [
    { id: 'a', question: '1+1?', answer: '2' },
    { id: 'line-2', question: 'half?', answer: '\\frac{1}{2}' },
  ]);
});

test('problem sets: a file serves both splits unless eval_path is given; out-of-range index names the file', () => {
  const path = file('set.jsonl', toJsonl([{ question: 'a', answer: 1 }, { question: 'b', answer: 2 }]));
  const evalPath = file('set-eval.jsonl', toJsonl([{ question: 'c', answer: 3 }]));
  const both = problemSet({ path, read: readMathProblems, synthetic: () => assert.fail('no synthetic') });
  assert.equal(both.size, 2);
  assert.equal(both.get(1, 'eval').question, 'b');
  inputError(() => both.get(2, 'train'), /set\.jsonl has 2 problems.*rollout\.tasks to at most 2/);
  const split = problemSet({ path, evalPath, read: readMathProblems, synthetic: () => assert.fail('no synthetic') });
  assert.equal(split.get(0, 'eval').question, 'c');
  assert.equal(split.get(0, 'train').question, 'a');
});

test('synthetic sets: deterministic per seed, differ across seeds, splits disjoint, solvable from their text', () => {
  const generators = [syntheticMathProblem, syntheticFunctionProblem, syntheticStdioProblem] as const;
  for (const generate of generators) {
    const texts = (seed: number, split: 'train' | 'eval') => Array.from({ length: 40 }, (_, i) => JSON.stringify(generate(seed, split, i)).replace(/\/(train|eval)\/\d+/, ''));
    assert.deepEqual(texts(1, 'train'), texts(1, 'train'));
    assert.notDeepEqual(texts(1, 'train'), texts(2, 'train'));
    const train = new Set(texts(1, 'train'));
    assert.ok(texts(1, 'eval').every((t) => !train.has(t)), 'no eval problem is also a train problem');
  }
  for (let i = 0; i < 30; i++) {
    const m = syntheticMathProblem(3, 'train', i);
    assert.equal(solveSyntheticMath(m.question), m.answer);
    const f = syntheticFunctionProblem(3, 'train', i);
    const known = recogniseFunctionPrompt(f.prompt)!;
    assert.equal(known.template.body(known.k), f.canonicalSolution);
    const s = syntheticStdioProblem(3, 'train', i);
    const st = recogniseStdioQuestion(s.question)!;
    assert.equal(st.template.solution(st.k), s.solution);
    assert.ok(s.tests.every((t) => st.template.run(st.k, t.input) === t.output));
  }
  assert.ok(new Set(Array.from({ length: 30 }, (_, i) => syntheticMathProblem(3, 'train', i).answer)).size > 5);
});
