// The natural-format team on Plan-Path with real sandbox runs: the tool's program runs in the
// sandbox, its printed moves are simulated on a copy, failures are penalised with their reason,
// the plan prompt shows program and output, and runs are memoised by the code text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scriptedPolicies } from '../../policy/scripted-policies.js';
import { rollout } from '../../rollout/rollout.js';
import { Sandbox } from '../../sandbox/sandbox.js';
import { TroupeError } from '../../util/errors.js';
import { createMoveRole } from '../grid/move-roles.js';
import { parseMoveOutput } from '../grid/parse-moves.js';
import { createProgramMoveRole } from '../grid/program-move-role.js';
import { ProgramTool } from '../grid/program-tool.js';
import type { Direction } from '../grid/types.js';
import { PLAN_PATH_REWARDS, PlanPathEnv, planPathTask } from './index.js';
import { planPathPresenter } from './plan-path-presenter.js';
import { taskFromRows } from './task-from-rows.test-helper.js';
import { sandboxSkip } from '../../sandbox/sandbox-skip.test-helper.js';


// The only shortest path is RRDDLL.
const U_TURN = ['P..', '##.', 'G..'];
const ctx = { turn: 0, maxTurns: 4 };
const fence = (code: string) => `Here is my program.\n\`\`\`python\n${code}\n\`\`\`\n`;

/** A program a model might write: BFS over the board it embeds, printing the path. */
const BFS_PROGRAM = `from collections import deque
grid = ["P..", "##.", "G.."]
find = lambda ch: next((r, row.index(ch)) for r, row in enumerate(grid) if ch in row)
start, goal = find("P"), find("G")
steps = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
came = {start: None}
todo = deque([start])
while todo:
    cell = todo.popleft()
    for m, (dr, dc) in steps.items():
        r, c = cell[0] + dr, cell[1] + dc
        if 0 <= r < 3 and 0 <= c < 3 and grid[r][c] != "#" and (r, c) not in came:
            came[(r, c)] = (cell, m)
            todo.append((r, c))
path, cell = [], goal
while came[cell] is not None:
    cell, m = came[cell]
    path.append(m)
print(" ".join(reversed(path)))`;

/** A tool with small limits so the looping program costs half a second, not two. */
function testTool(): ProgramTool<Direction[]> {
  return new ProgramTool<Direction[]>({
    readOutput: (stdout) => parseMoveOutput(stdout, 20),
    limits: { wallMs: 500, cpuMs: 1000, memoryMb: 256, outputBytes: 64 * 1024 },
  });
}

function roles(tool = testTool()) {
  return {
    tool: createProgramMoveRole({ maxMoves: 20, presenter: planPathPresenter, tool }),
    plan: createMoveRole({ name: 'plan', format: 'natural', maxMoves: 20, presenter: planPathPresenter }),
    programs: tool,
  };
}

describe('plan-path natural team: the tool program in the sandbox', () => {
  it('a program that computes the path: simulated on a copy, shown to plan with its output', { skip: sandboxSkip }, async () => {
    const { tool, plan } = roles();
    const env = new PlanPathEnv(taskFromRows(U_TURN));
    const prompt = tool.prompt(env, ctx);
    assert.match(prompt, /^P\.\.\n##\.\nG\.\.$/m, 'the board rows, plain, so a program can copy them');
    assert.match(prompt, /P is at row 1, column 1; G is at row 3, column 1\./);
    assert.match(prompt, /Python 3 program/);
    assert.match(prompt, /at most 20 moves on its last output line/);
    const action = tool.parse(fence(BFS_PROGRAM));
    assert.ok(action.ok);
    await tool.prepare!(env, action, ctx);
    const outcome = tool.step(env, action, ctx);
    const expected = new PlanPathEnv(taskFromRows(U_TURN)).applyMoves([...'RRDDLL'] as Direction[]);
    assert.equal(outcome.local, expected.reward);
    assert.equal(outcome.failure, undefined);
    assert.equal(outcome.info?.['program'], 'ok');
    // The real board never changes: the agent still stands on the start.
    assert.equal(env.pos, env.task.start);
    assert.equal(env.walked, 0);
    const record = env.history[0]!;
    assert.deepEqual([record.kind, record.moves, record.program?.output], ['proposal', 'RRDDLL', 'R R D D L L']);
    const planPrompt = plan.prompt(env, ctx);
    assert.ok(planPrompt.includes(`\`\`\`python\n${BFS_PROGRAM}\n\`\`\``), 'the plan sees the program');
    assert.match(planPrompt, /It printed:\n```\nR R D D L L\n```/);
    assert.match(planPrompt, /proposed R, R, D, D, L, L; on a copy of the board it reaches the goal by a shortest path/);
    const committed = plan.step(env, plan.parse('Answer: R, R, D, D, L, L'), ctx);
    assert.equal(committed.local, outcome.local);
    assert.equal(env.success && env.optimal, true);
  });

  it('crashing, looping, garbage-printing, silent and flooding programs are penalised with their reason', { skip: sandboxSkip }, async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['print(1 // 0)', 'error', /^tool: program error: ZeroDivisionError: integer division or modulo by zero$/],
      ['while True:\n    pass', 'timeout', /^tool: program timeout \(limit 0\.5 s\)$/],
      ['print("hello world")', 'ok', /^tool: program output unusable: unexpected word "hello"/],
      ['x = 1', 'ok', /^tool: program output unusable: no moves/],
      ['while True:\n    print("U" * 1000)', 'output-limit', /^tool: program output-limit/],
      ['print("R R R R R")', 'ok', /^tool: 3 of 5 moves hit a wall or the grid edge$/],
    ];
    const { tool, plan } = roles();
    const base = new PlanPathEnv(taskFromRows(U_TURN));
    const envs = cases.map(() => base.clone());
    const actions = cases.map(([code]) => tool.parse(fence(code)));
    await Promise.all(actions.map((action, i) => tool.prepare!(envs[i]!, action, ctx)));
    cases.forEach(([code, reason, failure], i) => {
      const env = envs[i]!;
      const outcome = tool.step(env, actions[i]!, ctx);
      assert.match(outcome.failure ?? '', failure, code);
      assert.equal(outcome.info?.['program'], reason, code);
      assert.equal(env.pos, env.task.start, `${code}: the board is unchanged`);
      const record = env.history.at(-1)!;
      assert.equal(record.program?.code, `${code}\n`);
      if (reason !== 'ok' || record.report === undefined) {
        assert.equal(outcome.local, PLAN_PATH_REWARDS.invalid, `${code}: the invalid-move penalty`);
        assert.match(plan.prompt(env, ctx), /The tool agent proposed an answer that could not be used \(program /);
      } else {
        assert.ok(outcome.local < 0, `${code}: wall hits cost`);
      }
    });
    assert.match(plan.prompt(envs[0]!, ctx), /Its error output ends with:\n```\n[\s\S]*ZeroDivisionError/);
    assert.equal(base.history.length, 0, 'the clones\' records never reach the original');
  });

  it('an answer without a program is a parse failure; prepare runs nothing for it', { skip: sandboxSkip }, async () => {
    const { tool, programs } = roles();
    const env = new PlanPathEnv(taskFromRows(U_TURN));
    const action = tool.parse('R, R, D, D, L, L');
    assert.equal(action.ok, false);
    await tool.prepare!(env, action, ctx);
    assert.equal(programs.runs, 0);
    const outcome = tool.step(env, action, ctx);
    assert.equal(outcome.local, PLAN_PATH_REWARDS.invalid);
    assert.match(outcome.failure ?? '', /^tool: no program: /);
    assert.equal(outcome.info?.['parsed'], false);
  });

  it('runs are memoised by the code: clones and replays reuse them, states stay independent', { skip: sandboxSkip }, async () => {
    const { tool, programs } = roles();
    const env = new PlanPathEnv(taskFromRows(U_TURN));
    const action = tool.parse(fence('print("R R D")'));
    // step before prepare is Troupe's own bug, reported as such.
    assert.throws(() => tool.step(env, action, ctx), (e: unknown) => e instanceof TroupeError && e.category === 'invariant');
    const copy = env.clone();
    await Promise.all([tool.prepare!(env, action, ctx), tool.prepare!(copy, action, ctx)]);
    await tool.prepare!(env.clone(), action, ctx);
    assert.equal(programs.runs, 1, 'one sandbox run for the same code, however often it is prepared');
    const onCopy = tool.step(copy, action, ctx);
    assert.equal(env.history.length, 0, 'stepping the clone leaves the original alone');
    const onOriginal = tool.step(env, action, ctx);
    assert.deepEqual(onOriginal, onCopy);
    assert.equal(copy.history.length, 1);
    assert.equal(env.history.length, 1);
    // Different code is a different run.
    const other = tool.parse(fence('print("R", "R", "D")'));
    await tool.prepare!(env, other, ctx);
    assert.equal(programs.runs, 2);
  });
});

describe('plan-path natural team: a host that cannot sandbox', () => {
  it("prepare fails with the sandbox's own error, not a silent fallback", { skip: sandboxSkip }, async () => {
    const broken = new ProgramTool<Direction[]>({
      readOutput: (stdout) => parseMoveOutput(stdout, 20),
      sandbox: () => new Sandbox({ python: '/nonexistent/python3' }),
    });
    const { tool } = roles(broken);
    const env = new PlanPathEnv(taskFromRows(U_TURN));
    await assert.rejects(
      tool.prepare!(env, tool.parse(fence('print("R")')), ctx),
      (e: unknown) => e instanceof TroupeError && e.category === 'sandbox' && /python3/.test(e.message),
    );
  });
});

describe('plan-path natural team through the tree rollout', () => {
  it('scripted players: every tool branch runs its program; plan prompts show the output', { skip: sandboxSkip }, async () => {
    const options = planPathTask.optionsSchema.parse({ size: 6 });
    const team = planPathTask.createTeam(options, { variant: 'team', format: 'natural', order: 'sequential', maxTurns: 3, alpha: 1 });
    const result = await rollout({
      team,
      source: planPathTask.createSource(options, 11),
      tasks: [0, 1],
      policyFor: scriptedPolicies(planPathTask.scripted, 0.5),
      options: { mode: 'tree', k: 2, temperature: 1, topP: 1, topK: 0, maxTokens: 4096, stop: [] },
      seed: 5,
      step: 0,
    });
    const tools = result.samples.filter((s) => s.role === 'tool');
    const plans = result.samples.filter((s) => s.role === 'plan');
    assert.ok(tools.length >= 4 && plans.length >= 4);
    assert.ok(tools.every((s) => s.response.startsWith('```python\n')));
    // Scripted programs always run to the end; a random move into a wall is the only failure.
    assert.ok(tools.every((s) => s.failure === undefined || /hit a wall/.test(s.failure)), JSON.stringify(tools.map((s) => s.failure)));
    assert.ok(plans.every((s) => /It ran to the end\.\nIt printed:\n```\n[UDLR]( [UDLR])*\n```/.test(s.prompt)));
  });
});
