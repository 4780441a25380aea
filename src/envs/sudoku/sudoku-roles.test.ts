import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STANDARD_ALPHABET } from '../../engine/tokenizer/char-tokenizer.js';
import { Rng } from '../../util/rng.js';
import type { Team, TeamOptions } from '../types.js';
import { sudokuTask } from './index.js';
import type { SudokuEnv } from './sudoku-env.js';
import { PUZZLE, SOLVING_FILLS, assertClose, puzzleEnv } from './sudoku-fixtures.test-helper.js';

const options = sudokuTask.optionsSchema.parse({});
const teamOptions: TeamOptions = { variant: 'team', format: 'compact', order: 'sequential', maxTurns: 3, alpha: 1 };
const t0 = { turn: 0, maxTurns: 3 };
const t1 = { turn: 1, maxTurns: 3 };

function roles(team: Team<SudokuEnv>) {
  const [first, second] = team.roles;
  assert.ok(first !== undefined);
  return { first, second };
}

const BOARD = '1.3.\n.4.2\n2.4.\n.3.1';

test('team variant: tool then plan, matching teamRoles; single variant: agent', () => {
  const team = sudokuTask.createTeam(options, teamOptions);
  assert.deepEqual(team.roles.map((r) => r.name), [...sudokuTask.teamRoles]);
  assert.equal(team.name, 'sudoku/team');
  const single = sudokuTask.createTeam(options, { ...teamOptions, variant: 'single' });
  assert.deepEqual(single.roles.map((r) => r.name), ['agent']);
});

test('the tool proposal is judged on a copy and shown to plan in the same turn', () => {
  const { first: tool, second: plan } = roles(sudokuTask.createTeam(options, teamOptions));
  assert.ok(plan !== undefined);
  const env = puzzleEnv();
  assert.equal(tool.prompt(env, t0), `TOOL 1/3 M16\n${BOARD}\nA:`);
  assert.equal(plan.prompt(env, t0), `PLAN 1/3 M16\n${BOARD}\nTOOL -\nA:`);
  // (1,2)=2 is right; then (1,2)=1 repeats the 1 of row 1.
  const out = tool.step(env, tool.parse('122 121\n'), t0);
  assertClose(out.local, -0.01 + 0.1 - 0.1);
  assert.equal(out.failure, 'tool: invalid fills: 1 conflict');
  assert.deepEqual(env.cells, PUZZLE.givens, 'the tool never changes the board');
  assert.equal(plan.prompt(env, t0), `PLAN 1/3 M16\n${BOARD}\nTOOL 122 121\nSIM VX E=7\nA:`);
  // A proposal belongs to its turn: next turn's plan has not seen one yet.
  assert.match(plan.prompt(env, t1), /\nTOOL -\n/);
});

test('plan commits its own fills and earns their reward; the global reward tracks progress', () => {
  const team = sudokuTask.createTeam(options, teamOptions);
  const { first: tool, second: plan } = roles(team);
  assert.ok(plan !== undefined);
  const env = puzzleEnv();
  tool.step(env, tool.parse('122 144 999'), t0);
  assert.match(plan.prompt(env, t0), /\nTOOL 122 144 999\nSIM VVR E=6\nA:$/);
  const out = plan.step(env, plan.parse('122 144'), t0);
  assertClose(out.local, 2 * 0.09);
  assert.equal(out.failure, undefined);
  assert.equal(env.cells[1], 2);
  assert.equal(env.cells[3], 4);
  assertClose(team.globalReward(env), 0.5 * (2 / 8));
  tool.step(env, tool.parse('121'), t1);
  const winning = SOLVING_FILLS.slice(2).map((f) => `${f.row}${f.col}${f.digit}`).join(' ');
  const solved = plan.step(env, plan.parse(winning), t1);
  assertClose(solved.local, 6 * 0.09 + 1);
  assert.equal(env.success, true);
  assert.equal(env.done, true);
  assert.equal(team.globalReward(env), 1);
});

test('the simulated proposal of a solving answer says win and earns what the commit would', () => {
  const { first: tool, second: plan } = roles(sudokuTask.createTeam(options, teamOptions));
  assert.ok(plan !== undefined);
  const env = puzzleEnv();
  const text = SOLVING_FILLS.map((f) => `${f.row}${f.col}${f.digit}`).join(' ');
  const proposed = tool.step(env, tool.parse(text), t0);
  assert.equal(env.done, false);
  assert.match(plan.prompt(env, t0), /\nSIM VVVVVVVV E=0 WIN\n/);
  const committed = plan.step(env, plan.parse(text), t0);
  assertClose(proposed.local, committed.local);
  assertClose(committed.local, 8 * 0.09 + 1);
});

test('parse failures are penalised, change nothing and are recorded for later prompts', () => {
  const { first: tool, second: plan } = roles(sudokuTask.createTeam(options, teamOptions));
  assert.ok(plan !== undefined);
  const env = puzzleEnv();
  const toolOut = tool.step(env, tool.parse('solve it\n'), t0);
  assertClose(toolOut.local, -0.1);
  assert.match(toolOut.failure ?? '', /^tool: bad fill "solve"/);
  assert.match(plan.prompt(env, t0), /\nTOOL \?\nA:$/);
  const planOut = plan.step(env, plan.parse('\n'), t0);
  assertClose(planOut.local, -0.1);
  assert.match(planOut.failure ?? '', /^plan: no fills/);
  assert.deepEqual(env.cells, PUZZLE.givens);
  assert.deepEqual(env.history.map((r) => [r.role, r.kind, r.failure !== undefined]), [
    ['tool', 'proposal', true],
    ['plan', 'commit', true],
  ]);
});

test('natural agent: rules, board, history with reasons, and the Answer: line', () => {
  const team = sudokuTask.createTeam(options, { ...teamOptions, variant: 'single', format: 'natural' });
  const { first: agent } = roles(team);
  const env = puzzleEnv();
  const first = agent.prompt(env, t0);
  assert.match(first, /\| 1 \. \| 3 \. \|\n\| \. 4 \| \. 2 \|\n\+-----\+-----\+/);
  assert.match(first, /at most 16 fills/);
  assert.ok(first.endsWith('\nAnswer:'));
  const out = agent.step(env, agent.parse('Answer: (1, 2, 2), (2, 1, 4)'), t0);
  assert.equal(out.failure, 'agent: invalid fills: 1 conflict');
  const second = agent.prompt(env, t1);
  assert.match(second, /Turn 1, agent wrote: \(1, 2, 2\) applied; \(2, 1, 4\) rejected: 4 is already in its row and box\./);
  assert.match(second, /\| 1 2 \| 3 \. \|/);
});

test('natural team: the tool is asked for a program (run by prepare), plan writes fills', () => {
  const team = sudokuTask.createTeam(options, { ...teamOptions, format: 'natural' });
  const { first: tool, second: plan } = roles(team);
  assert.ok(plan !== undefined);
  assert.equal(typeof tool.prepare, 'function');
  assert.equal(plan.prepare, undefined);
  const env = puzzleEnv();
  const prompt = tool.prompt(env, t0);
  assert.match(prompt, /Python 3 program/);
  assert.match(prompt, /\["1\.3\.", "\.4\.2", "2\.4\.", "\.3\.1"\]/, 'the rows as Python strings to copy');
  assert.match(prompt, /at most 16 fills, one \(row, column, digit\) triple a line/);
  assert.ok(prompt.endsWith('\nAnswer:'));
  const noFence = tool.parse('(1, 2, 2)');
  assert.equal(noFence.ok, false);
  const out = tool.step(env, noFence, t0);
  assert.equal(out.local, -0.1);
  assert.match(out.failure ?? '', /^tool: no program/);
  assert.match(plan.prompt(env, t0), /Turn 1, tool: an answer that could not be used \(no program/);
  assert.match(plan.prompt(env, t0), /Write at most 16 fills as \(row, column, digit\) triples/);
});

test('compact prompts and answers stay inside the small models\' 64-character vocabulary', () => {
  const team = sudokuTask.createTeam(options, teamOptions);
  const { first: tool, second: plan } = roles(team);
  assert.ok(plan !== undefined);
  const outside = (text: string) => [...text].filter((ch) => !STANDARD_ALPHABET.includes(ch));
  const env = puzzleEnv();
  const texts = [tool.prompt(env, t0), plan.prompt(env, t0)];
  tool.step(env, tool.parse('garbage'), t0);
  texts.push(plan.prompt(env, t0));
  const answer = sudokuTask.scripted({ role: 'tool', prompt: texts[0] ?? '', skill: 0.5, rng: new Rng(1) });
  tool.step(env, tool.parse(answer), t0);
  texts.push(plan.prompt(env, t0), answer);
  for (const text of texts) assert.deepEqual(outside(text), [], text);
});

test('hint empty: every compact prompt names the empty cells, which track the committed fills', () => {
  const hinted = sudokuTask.optionsSchema.parse({ hint: 'empty' });
  const { first: tool, second: plan } = roles(sudokuTask.createTeam(hinted, teamOptions));
  assert.ok(plan !== undefined);
  const env = puzzleEnv();
  // BOARD's dots: (1,2) (1,4) (2,1) (2,3) (3,2) (3,4) (4,1) (4,3).
  assert.equal(tool.prompt(env, t0), `TOOL 1/3 M16\nEMPTY 12 14 21 23 32 34 41 43\n${BOARD}\nA:`);
  plan.step(env, plan.parse('122\n'), t0);
  assert.match(plan.prompt(env, t1), /^PLAN 2\/3 M16\nEMPTY 14 21 23 32 34 41 43\n123\.\n/);
  const single = sudokuTask.createTeam(hinted, { ...teamOptions, variant: 'single' });
  assert.match(single.roles[0]?.prompt(puzzleEnv(), t0) ?? '', /^AGENT 1\/3 M16\nEMPTY 12 14/);
  // The scripted player still reads the board under the extra line.
  const answer = sudokuTask.scripted({ role: 'tool', prompt: tool.prompt(puzzleEnv(), t0), skill: 1, rng: new Rng(1) });
  assert.ok(tool.parse(answer).ok, answer);
});

test('hint cell: every compact prompt names the next cell and its units, which follow the committed fills', () => {
  const hinted = sudokuTask.optionsSchema.parse({ hint: 'cell', max_fills: 1 });
  const { first: tool, second: plan } = roles(sudokuTask.createTeam(hinted, teamOptions));
  assert.ok(plan !== undefined);
  const env = puzzleEnv();
  // Every empty cell of BOARD has one candidate: the first in reading order, (1,2), is named.
  assert.equal(tool.prompt(env, t0), `TOOL 1/3 M1\nCELL 12 ROW 1.3. COL .4.3 BOX 1..4\n${BOARD}\nA:`);
  plan.step(env, plan.parse('122\n'), t0);
  assert.equal(plan.prompt(env, t1), 'PLAN 2/3 M1\nCELL 14 ROW 123. COL .2.1 BOX 3..2\n123.\n.4.2\n2.4.\n.3.1\nTOOL -\nA:');
  const single = sudokuTask.createTeam(hinted, { ...teamOptions, variant: 'single' });
  assert.match(single.roles[0]?.prompt(puzzleEnv(), t0) ?? '', /^AGENT 1\/3 M1\nCELL 12 ROW /);
  // The scripted player fills the named cell: its solution digit at skill 1, any digit at 0.
  assert.equal(sudokuTask.scripted({ role: 'tool', prompt: tool.prompt(puzzleEnv(), t0), skill: 1, rng: new Rng(1) }), '122\n');
  for (let seed = 0; seed < 20; seed++) {
    assert.match(sudokuTask.scripted({ role: 'plan', prompt: plan.prompt(env, t1), skill: 0, rng: new Rng(seed) }), /^14[1-4]\n$/);
  }
});

test('an unknown sudoku hint is a config error naming the allowed values', () => {
  const result = sudokuTask.optionsSchema.safeParse({ hint: 'candidates' });
  assert.equal(result.success, false);
  assert.match(String(result.error?.issues[0]?.message), /hint must be one of none \| empty \| cell/);
});

test('history last: every compact prompt shows the fills played last and their verdicts', () => {
  const remembering = sudokuTask.optionsSchema.parse({ hint: 'cell', history: 'last', max_fills: 1 });
  const { first: tool, second: plan } = roles(sudokuTask.createTeam(remembering, teamOptions));
  assert.ok(plan !== undefined);
  const env = puzzleEnv();
  assert.equal(tool.prompt(env, t0), `TOOL 1/3 M1\nCELL 12 ROW 1.3. COL .4.3 BOX 1..4\nLAST -\n${BOARD}\nA:`);
  // The tool's proposal is not played: plan still sees LAST -, then its own rejected fill.
  tool.step(env, tool.parse('121\n'), t0);
  assert.match(plan.prompt(env, t0), /\nLAST -\n/);
  plan.step(env, plan.parse('121\n'), t0);
  assert.match(tool.prompt(env, t1), /^TOOL 2\/3 M1\nCELL 12 ROW 1\.3\. COL \.4\.3 BOX 1\.\.4\nLAST 121 X\n1\.3\.\n/);
  plan.step(env, plan.parse('zz'), t1);
  assert.match(tool.prompt(env, { turn: 2, maxTurns: 3 }), /\nLAST \?\n/);
  const played = puzzleEnv();
  plan.step(played, plan.parse('122\n'), t0);
  assert.match(plan.prompt(played, t1), /\nLAST 122 V\n/);
  const single = sudokuTask.createTeam(remembering, { ...teamOptions, variant: 'single' });
  assert.match(single.roles[0]?.prompt(puzzleEnv(), t0) ?? '', /^AGENT 1\/3 M1\nCELL 12 ROW .*\nLAST -\n/);
  // Without the option nothing changes.
  const plain = sudokuTask.createTeam(sudokuTask.optionsSchema.parse({ hint: 'cell', max_fills: 1 }), teamOptions);
  assert.doesNotMatch(plain.roles[0]?.prompt(env, t1) ?? '', /LAST/);
});

test('history last: the scripted guess never repeats the digit just rejected at the named cell', () => {
  const remembering = sudokuTask.optionsSchema.parse({ hint: 'cell', history: 'last', max_fills: 1 });
  const { first: tool, second: plan } = roles(sudokuTask.createTeam(remembering, teamOptions));
  assert.ok(plan !== undefined);
  const env = puzzleEnv();
  plan.step(env, plan.parse('121\n'), t0);
  const prompt = tool.prompt(env, t1);
  const digits = new Set<string>();
  for (let seed = 0; seed < 60; seed++) {
    const answer = sudokuTask.scripted({ role: 'tool', prompt, skill: 0, rng: new Rng(seed) });
    assert.match(answer, /^12[234]\n$/);
    digits.add(answer[2] ?? '');
  }
  assert.deepEqual([...digits].sort(), ['2', '3', '4'], 'the guess covers the other three digits');
});

test('an unknown sudoku history is a config error naming the allowed values', () => {
  const result = sudokuTask.optionsSchema.safeParse({ history: 'all' });
  assert.equal(result.success, false);
  assert.match(String(result.error?.issues[0]?.message), /history must be one of none \| last/);
});
