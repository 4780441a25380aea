// HumanEval through the whole pipeline: the reference policy answers every problem with its
// canonical solution, the single-agent coop-code task (HumanEval semantics) runs it in the
// sandbox, and every one must pass with full test credit. The dataset ships in
// datasets/humaneval/.
// Run: npx tsx --test src/envs/coop-code/humaneval.test.ts
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readHumanEval } from '../../datasets/humaneval-problem.js';
import { referencePolicies } from '../../policy/reference-policy.js';
import { rollout } from '../../rollout/rollout.js';
import { sharedSandbox } from '../code/shared-sandbox.js';
import { evaluateCompletion } from './evaluate-coop.js';
import { coopCodeTask } from './index.js';
import { shippedHumanEvalPath } from '../../util/repo-root.test-helper.js';
import { sandboxSkip } from '../../sandbox/sandbox-skip.test-helper.js';

const path = shippedHumanEvalPath();

test('reference policy: all 164 HumanEval canonical solutions pass with full test credit', { skip: sandboxSkip }, async (t) => {
  const options = coopCodeTask.optionsSchema.parse({ path });
  const source = coopCodeTask.createSource(options, 1);
  assert.equal(source.size, 164);
  const started = performance.now();
  const { samples, episodes } = await rollout({
    team: coopCodeTask.createTeam(options, { variant: 'single', format: 'natural', order: 'sequential', maxTurns: 1, alpha: 1 }),
    source,
    tasks: Array.from({ length: 164 }, (_, i) => i),
    policyFor: referencePolicies(coopCodeTask, options, 1),
    options: { mode: 'tree', k: 1, temperature: 0, topP: 1, topK: 0, maxTokens: 1024, stop: [] },
    seed: 1,
    step: 0,
  });
  const seconds = (performance.now() - started) / 1000;
  t.diagnostic(`164 HumanEval problems through rollout + reference policy + sandbox in ${seconds.toFixed(1)} s`);
  const failed = samples.filter((s) => s.reward.local !== 1 || s.failure).map((s) => `${s.task_id}: ${s.reward.local} ${s.failure ?? ''}`);
  assert.deepEqual(failed, []);
  assert.equal(episodes.filter((e) => e.success).length, 164);
});

test('broken HumanEval completions fail with the right reason: wrong return, syntax error, infinite loop', { skip: sandboxSkip }, async () => {
  const problem = readHumanEval(path)[0]!;
  const limits = { wallMs: 1500, cpuMs: 1500 };
  const [wrong, syntax, loop, right] = await Promise.all(
    ['    return None\n', '    return (\n', '    while True:\n        pass\n', problem.canonicalSolution!].map((c) =>
      evaluateCompletion(sharedSandbox(), problem, c, limits),
    ),
  );
  assert.equal(right!.allPassed, true);
  assert.deepEqual([wrong!.reason, wrong!.allPassed, wrong!.passed < wrong!.total], ['ok', false, true], 'wrong return: runs, asserts fail');
  assert.equal(syntax!.passed, 0);
  assert.match(syntax!.error!, /^definition: SyntaxError/, 'syntax error: the definition stage fails');
  assert.deepEqual([loop!.reason, loop!.passed], ['timeout', 0], 'infinite loop: timeout');
  assert.match(loop!.error!, /^run: the program stopped early \(timeout\)/);
});
