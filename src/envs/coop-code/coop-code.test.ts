import { test } from 'node:test';
import assert from 'node:assert/strict';
import { syntheticFunctionProblem } from '../../datasets/synthetic-functions.js';
import { referencePolicies } from '../../policy/reference-policy.js';
import { scriptedPolicies } from '../../policy/scripted-policies.js';
import { rollout } from '../../rollout/rollout.js';
import type { TeamOptions } from '../types.js';
import { chatAdviceSource, type AdviceRequest, type AdviceSource } from './advice-source.js';
import { coopCodeTask, createCoopSource } from './index.js';
import { sandboxSkip } from '../../sandbox/sandbox-skip.test-helper.js';

const team = (over: Partial<TeamOptions> = {}): TeamOptions => ({ variant: 'team', format: 'natural', order: 'parallel', maxTurns: 2, alpha: 1, ...over });
const ctx = (turn: number) => ({ turn, maxTurns: 2 });
const options = coopCodeTask.optionsSchema.parse({});

async function act(role: any, env: any, text: string, turn: number) {
  const parsed = role.parse(text);
  await role.prepare(env, parsed, ctx(turn));
  return role.step(env, parsed, ctx(turn));
}

test('feedback transition: turn-2 prompts show both functions and the failing asserts', { skip: sandboxSkip }, async () => {
  const env = coopCodeTask.createSource(options, 2).make(0, 'train');
  const problem = syntheticFunctionProblem(2, 'train', 0);
  const [aux, main] = coopCodeTask.createTeam(options, team()).roles;
  assert.ok(aux!.prompt(env, ctx(0)).startsWith('[task coop-code/train/0]\n'));
  await act(aux, env, '```python\ndef aux(v):\n    return v\n```', 0);
  const out = await act(main, env, `\`\`\`python\ndef ${problem.entryPoint}(*args):\n    return aux(None)\n\`\`\``, 0);
  assert.equal(out.local, 0, 'MAGRPO: joint reward only');
  assert.equal(env.success, false);
  assert.equal(coopCodeTask.createTeam(options, team()).globalReward(env), 1.5, 'structure 1.0 + syntax 0.5, no test passed');
  for (const role of [aux!, main!]) {
    const prompt = role.prompt(env, ctx(1));
    assert.match(prompt, /Previous aux:\n```python\ndef aux\(v\):/);
    assert.match(prompt, /Tests passed: 0\/3\./);
    assert.match(prompt, /Failing tests:\n {2}assert candidate\(/);
  }
});

test('every outcome short of full credit carries a reason: the role\'s own code first, main also for the pair', { skip: sandboxSkip }, async () => {
  const problem = syntheticFunctionProblem(2, 'train', 0);
  const entry = problem.entryPoint;
  const [aux, main] = coopCodeTask.createTeam(options, team({ order: 'sequential' })).roles;
  /** Plays aux then main on a fresh env; returns both outcomes. */
  const pair = async (auxText: string, mainText: string) => {
    const env = coopCodeTask.createSource(options, 2).make(0, 'train');
    return [await act(aux, env, auxText, 0), await act(main, env, mainText, 0)];
  };
  const goodAux = 'def aux(v):\n    return v';
  const wrongMain = `def ${entry}(*args):\n    return aux(None)`;
  // Answers seen in a training run: no function at all, and a helper that does not parse.
  let [a, m] = await pair('dg', wrongMain);
  assert.equal(a.failure, 'aux: no top-level function aux that returns a value');
  assert.equal(m.failure, "definition: NameError: name 'dg' is not defined", 'main answers for the pair');
  [a] = await pair("def ' ales", wrongMain);
  assert.match(a.failure, /^aux: syntax error at line 1: unterminated string literal/);
  [a, m] = await pair(goodAux, 'x = 1');
  assert.equal(a.failure, undefined, 'a defined helper is not aux\'s failure');
  assert.equal(m.failure, `main: no top-level function ${entry} that returns a value`);
  [, m] = await pair(goodAux, '    return 1');
  assert.match(m.failure, /^main: syntax error at line 1: unexpected indent/);
  // Each part parses alone; the combined program does not compile.
  [a, m] = await pair(`${goodAux}\nreturn 5`, wrongMain);
  assert.equal(a.failure, undefined);
  assert.equal(m.failure, "the combined program does not compile: 'return' outside function at aux line 3");
  // Full credit on the tests: no failure on either role.
  [, m] = await pair(goodAux, wrongMain);
  assert.equal(m.failure, 'failed 3 of 3 asserts');
  [a, m] = await pair(goodAux, `${problem.prompt}${problem.canonicalSolution}`);
  assert.deepEqual([a.failure, m.failure], [undefined, undefined]);
  // The single variant: failed asserts are counted in the reason.
  const [agent] = coopCodeTask.createTeam(options, team({ variant: 'single' })).roles;
  const env = coopCodeTask.createSource(options, 2).make(0, 'train');
  const out = await act(agent, env, '    return None', 0);
  assert.deepEqual([out.local, out.failure], [0, 'failed 3 of 3 asserts']);
});

test('task options that would do nothing are config errors', () => {
  const advice = { base_url: 'http://localhost:1/v1', model: 'm' };
  assert.throws(() => coopCodeTask.createTeam(coopCodeTask.optionsSchema.parse({ advice }), team()), /tasks\.advice has no effect with tasks\.transition feedback/);
  const guided = coopCodeTask.optionsSchema.parse({ transition: 'advice', advice });
  assert.throws(() => coopCodeTask.createTeam(guided, team({ variant: 'single' })), /tasks\.transition: advice is a transition of the aux \+ main team/);
  const weighted = coopCodeTask.optionsSchema.parse({ reward: { tests: 2 } });
  assert.throws(() => coopCodeTask.createTeam(weighted, team({ variant: 'single' })), /tasks\.reward\.tests has no effect with team\.variant single/);
  // The same options where they act.
  assert.equal(coopCodeTask.createTeam(guided, team()).roles.length, 2);
  assert.equal(coopCodeTask.createTeam(weighted, team()).roles.length, 2);
  assert.equal(coopCodeTask.createTeam(options, team({ variant: 'single' })).roles.length, 1);
});

test('guided transition: the advice source sees the pair and its results; its advice reaches the next prompts', { skip: sandboxSkip }, async () => {
  const seen: AdviceRequest[] = [];
  const fake: AdviceSource = { advise: async (r) => (seen.push(r), 'Call aux from main.') };
  const guided = coopCodeTask.optionsSchema.parse({ transition: 'advice', advice: { base_url: 'http://localhost:1/v1', model: 'm' } });
  const env = createCoopSource(guided, 2, fake).make(0, 'train');
  const problem = syntheticFunctionProblem(2, 'train', 0);
  const [aux, main] = coopCodeTask.createTeam(guided, team()).roles;
  await act(aux, env, problem.canonicalSolution ? 'def aux(v): return v' : '', 0);
  await act(main, env, `def ${problem.entryPoint}(*args): return None`, 0);
  assert.equal(seen.at(-1)!.aux, 'def aux(v): return v\n');
  assert.match(seen.at(-1)!.feedback, /Tests passed: 0\/3/);
  assert.match(main!.prompt(env, ctx(1)), /Advice: Call aux from main\./);
  const failing: AdviceSource = { advise: async () => Promise.reject(new Error('down')) };
  const env2 = createCoopSource(guided, 2, failing).make(0, 'train');
  const out = await act(aux, env2, 'def aux(v): return v', 0);
  assert.match(out.failure, /advice unavailable: down/);
  assert.throws(() => coopCodeTask.createTeam(coopCodeTask.optionsSchema.parse({ transition: 'advice' }), team()), /tasks\.advice\.base_url/);
});

test('chatAdviceSource posts a chat completion and reads choices[0].message.content', async () => {
  let body: any;
  let url = '';
  const source = chatAdviceSource({
    baseUrl: 'http://advice.test/v1/',
    model: 'coach',
    apiKey: 'k',
    fetch: (async (u: string, init: RequestInit) => {
      url = u;
      body = JSON.parse(String(init.body));
      return new Response(JSON.stringify({ choices: [{ message: { content: ' Use a loop. ' } }] }), { status: 200 });
    }) as typeof fetch,
  });
  assert.equal(await source.advise({ problem: 'def f(): ...', aux: 'a', main: 'm', feedback: 'Tests passed: 0/1.' }), 'Use a loop.');
  assert.equal(url, 'http://advice.test/v1/chat/completions');
  assert.equal(body.model, 'coach');
  assert.match(body.messages[0].content, /Tests passed: 0\/1\./);
  const down = chatAdviceSource({ baseUrl: 'http://x', model: 'm', fetch: (async () => new Response('no', { status: 503 })) as typeof fetch });
  await assert.rejects(down.advise({ problem: '', aux: '', main: '', feedback: '' }), /HTTP 503/);
});

test('coop-code through the tree rollout: scripted skill 1 solves every task; sequential main earns the full 4.0', { skip: sandboxSkip }, async () => {
  const play = (order: TeamOptions['order']) =>
    rollout({
      team: coopCodeTask.createTeam(options, team({ format: 'compact', maxTurns: 1, order })),
      source: coopCodeTask.createSource(options, 3),
      tasks: [0, 1, 2],
      policyFor: scriptedPolicies(coopCodeTask.scripted, 1),
      options: { mode: 'tree', k: 2, temperature: 1, topP: 1, topK: 0, maxTokens: 100, stop: ['\n'] },
      seed: 1,
      step: 0,
    });
  const { episodes, samples } = await play('parallel');
  assert.ok(episodes.every((e) => e.success));
  // Parallel turns: branches are scored against the start-of-turn state, where the other
  // function does not exist yet: aux alone gets 0.4 (stop at structure); main alone gets
  // 0.6 + 0.5 and only the asserts that never reach aux (an empty list), no cooperation.
  assert.ok(samples.filter((s) => s.role === 'aux').every((s) => s.reward.global === 0.4));
  assert.ok(samples.filter((s) => s.role === 'main').every((s) => s.reward.global >= 1.1 - 1e-9 && s.reward.global < 2.1));
  const seq = await play('sequential');
  assert.ok(seq.samples.filter((s) => s.role === 'main').every((s) => s.reward.global === 4), 'sequential: main sees aux, full 4.0');
});

test('reference policy on the synthetic set: canonical completions pass (single), reference pair gets 2.5', { skip: sandboxSkip }, async () => {
  const run = async (variant: 'team' | 'single') =>
    rollout({
      team: coopCodeTask.createTeam(options, team({ variant, maxTurns: 1, order: 'sequential' })),
      source: coopCodeTask.createSource(options, 3),
      tasks: [0, 1],
      policyFor: referencePolicies(coopCodeTask, options, 3),
      options: { mode: 'tree', k: 1, temperature: 1, topP: 1, topK: 0, maxTokens: 400, stop: [] },
      seed: 1,
      step: 0,
    });
  const single = await run('single');
  assert.ok(single.episodes.every((e) => e.success) && single.samples.every((s) => s.reward.local === 1));
  const pair = await run('team');
  assert.ok(pair.episodes.every((e) => e.success));
  assert.ok(pair.samples.filter((s) => s.role === 'main').every((s) => s.reward.global === 2.5), 'structure + syntax + tests, no cooperation');
});
