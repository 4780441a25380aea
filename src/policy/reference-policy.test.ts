import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mathTask } from '../envs/math/index.js';
import { toyTask } from '../envs/toy/index.js';
import { TroupeError } from '../util/errors.js';
import { referencePolicies } from './reference-policy.js';

const request = (prompt: string, stop: string[] = []) => ({ prompt, n: 3, seed: 1, temperature: 1, topP: 1, topK: 0, maxTokens: 10, stop });

test('reference policy: the dataset answer for the prompt\'s task, n identical copies, cut at stop strings', async () => {
  const options = mathTask.optionsSchema.parse({});
  const env = mathTask.createSource(options, 9).make(5, 'eval');
  const team = mathTask.createTeam(options, { variant: 'team', format: 'natural', order: 'sequential', maxTurns: 3, alpha: 1 });
  const policyFor = referencePolicies(mathTask, options, 9);
  const prompt = team.roles[1]!.prompt(env, { turn: 0, maxTurns: 3 });
  const [completions] = await policyFor('reasoning').sample([request(prompt)]);
  assert.equal(completions!.length, 3);
  assert.ok(completions!.every((c) => c.text === completions![0]!.text && c.finishReason === 'stop'));
  assert.ok(completions![0]!.text.endsWith(`\\boxed{${env.problem.answer}}.`));
  const [cut] = await policyFor('reasoning').sample([request(prompt, ['\n'])]);
  assert.equal(cut![0]!.text, 'Working it out step by step gives the result.');
  assert.equal(policyFor('tool'), policyFor('tool'), 'one policy object per role (batched requests)');
});

test('reference policy on a task without reference solutions is a config error naming the tasks that have them', () => {
  assert.throws(
    () => referencePolicies(toyTask, {}, 1),
    (e: unknown) => e instanceof TroupeError && e.category === 'config' && /task toy has none.*code, coop-code, math/.test(e.message),
  );
});
