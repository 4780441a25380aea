// Troupe's Tinker client against a running SkyRL tx (or any Tinker service): one line per check,
// exit status 1 when any failed. scripts/skyrl-check.sh builds SkyRL tx, starts it and runs this.
//
//   TINKER_API_KEY=tml-x node scripts/skyrl-check.mjs http://127.0.0.1:8000 MODEL_DIR
//
// MODEL_DIR is the base model's local folder (the tokenizer is read here; the service serves
// the same folder under the same path). Checks that depend on an earlier one are skipped when
// it failed. SKYRL_CHECK_ONLY=api skips the `troupe train` runs. LOSS_REDUCTION (default `mean`,
// SkyRL tx's; `sum` for Tinker and `troupe serve --tinker`) is policy.tinker.loss_reduction.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTokenizer } from '../dist/src/engine/tokenizer/load-tokenizer.js';
import { gradientDatums } from '../dist/src/policy/gradient-datums.js';
import { TinkerPolicy } from '../dist/src/policy/tinker-policy.js';
import { TinkerClient, TinkerSampler } from '../dist/src/tinker/tinker-client.js';
import { runTraining } from '../dist/src/train/run-training.js';

const [baseUrl, modelDir] = process.argv.slice(2);
const reduction = process.env.LOSS_REDUCTION ?? 'mean';
if (!baseUrl || !modelDir) throw new Error('usage: node scripts/skyrl-check.mjs BASE_URL MODEL_DIR');
const tokenizer = readTokenizer(join(modelDir, 'tokenizer.json'));
let failed = 0;
const done = new Set();

/** Runs one check unless a check it needs failed; prints `ok`, `FAIL` or `skip` and the time. */
async function check(name, needs, body) {
  const missing = needs.filter((n) => !done.has(n));
  if (missing.length > 0) return console.log(`skip  ${name} (needs ${missing.join(', ')})`);
  const start = Date.now();
  try {
    const detail = await body();
    done.add(name);
    console.log(`ok    ${name}${detail ? `: ${detail}` : ''} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
  } catch (error) {
    failed++;
    console.log(`FAIL  ${name}: ${error instanceof Error ? error.message : String(error)} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
  }
}

function assert(ok, message) {
  if (!ok) throw new Error(message);
}

const prompt = tokenizer.encode('PLAN 1/4\nA:');
const sampleOf = (sampler, params, n = 4) => sampler.sample({ prompt: { chunks: [{ type: 'encoded_text', tokens: prompt }] }, num_samples: n, sampling_params: { max_tokens: 8, temperature: 1, ...params } });
/** prompt + completion as a next-token datum, with `weights` on the completion only. */
function datum(completion, weight) {
  const tokens = [...prompt, ...completion];
  const weights = tokens.slice(1).map((_, i) => (i >= prompt.length - 1 ? weight : 0));
  return {
    model_input: { chunks: [{ type: 'encoded_text', tokens: tokens.slice(0, -1) }] },
    loss_fn_inputs: { target_tokens: { dtype: 'int64', shape: [tokens.length - 1], data: tokens.slice(1) }, weights: { dtype: 'float32', shape: [tokens.length - 1], data: weights } },
  };
}
const completionLogprobs = (output, completion) => Array.from(output.logprobs.data).slice(prompt.length - 1, prompt.length - 1 + completion.length);
const maxGap = (a, b) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));
/** optim_step's gradient norm: `grad_norm:mean` (Troupe's server), `skyrl.ai/grad_norm` (SkyRL tx); undefined if not reported. */
const gradNormOf = (metrics = {}) => Object.entries(metrics).find(([k]) => k.includes('grad_norm'))?.[1];

const client = await TinkerClient.connect({ baseUrl, apiKey: process.env.TINKER_API_KEY ?? 'tml-check', maxRetries: 2 });
const models = (await client.capabilities()).map((m) => m.model_name);
const baseModel = models.find((m) => m === modelDir) ?? models[0];
console.log(`service ${baseUrl} serves ${models.join(', ')}; checking ${baseModel}`);
const base = await client.createSampler({ baseModel });
let free;

await check('sample: a rollout seed above 2^31 - 1 (TinkerPolicy)', [], async () => {
  const policy = new TinkerPolicy({ id: 'p', tokenizer, sampler: base });
  const [rows] = await policy.sample([{ prompt: 'PLAN 1/4\nA:', promptIds: prompt, n: 4, seed: 4106208882, temperature: 1, topP: 1, topK: 0, maxTokens: 8, stop: [] }]);
  assert(rows.length === 4, `${rows.length} completions for n 4`);
  return `${rows.length} completions`;
});

await check('sample: same seed, same tokens; another seed, other tokens', [], async () => {
  const [a, b, c] = [await sampleOf(base, { seed: 7 }), await sampleOf(base, { seed: 7 }), await sampleOf(base, { seed: 8 })];
  const ids = (r) => JSON.stringify(r.sequences.map((s) => s.tokens));
  assert(ids(a) === ids(b), `seed 7 twice: ${ids(a)} vs ${ids(b)}`);
  assert(ids(a) !== ids(c), 'seeds 7 and 8 sampled the same tokens');
  assert(new Set(a.sequences.map((s) => JSON.stringify(s.tokens))).size > 1, 'the 4 samples of one request are all equal (seed + i not applied)');
  free = a.sequences;
  const padded = a.sequences.flatMap((s) => s.tokens).filter((id) => id >= tokenizer.vocabSize).length;
  return `${padded} of ${a.sequences.flatMap((s) => s.tokens).length} sampled ids are padded rows`;
});

await check('sample: logprobs of every sampled token', ['sample: same seed, same tokens; another seed, other tokens'], async () => {
  for (const s of free) {
    assert(Array.isArray(s.logprobs) && s.logprobs.length === s.tokens.length, `${s.logprobs?.length} logprobs for ${s.tokens.length} tokens`);
    assert(s.logprobs.every((lp) => Number.isFinite(lp) && lp <= 1e-6), `logprobs ${s.logprobs}`);
  }
  return `${free.length} sequences`;
});

await check('sample: stop token ids', ['sample: same seed, same tokens; another seed, other tokens'], async () => {
  // An id some sample drew after its first token: with it as a stop id that sample ends there.
  const stopId = free.flatMap((s) => s.tokens.slice(1)).find((id) => id < tokenizer.vocabSize) ?? free[0].tokens[1];
  const r = await sampleOf(base, { seed: 7, stop: [stopId] });
  for (const s of r.sequences) {
    const at = s.tokens.indexOf(stopId);
    assert(at < 0 ? s.stop_reason === 'length' : at === s.tokens.length - 1 && s.stop_reason === 'stop', `stop ${stopId}: ${s.tokens} (${s.stop_reason})`);
  }
  assert(r.sequences.some((s) => s.stop_reason === 'stop'), `no sample stopped at ${stopId}`);
  return `stop id ${stopId}: ${r.sequences.filter((s) => s.stop_reason === 'stop').length} of 4 stopped`;
});

await check('sample: top_k 1 and top_p 0.01 are greedy', [], async () => {
  const [k, p] = [await sampleOf(base, { seed: 3, top_k: 1 }), await sampleOf(base, { seed: 4, top_p: 0.01 })];
  const all = [...k.sequences, ...p.sequences].map((s) => JSON.stringify(s.tokens));
  assert(new Set(all).size === 1, `greedy samples differ: ${[...new Set(all)].join(' | ')}`);
  return `greedy ${all[0]}`;
});

const lora = { rank: 4, seed: 1, train_unembed: false };
let model;
await check('create_model: a LoRA training client', [], async () => {
  model = await client.createLoraModel(baseModel, lora);
  return model.modelId;
});

await check('create_model: a LoRA seed above 2^31 - 1 (Troupe\'s adapter seeds are 32-bit hashes)', [], async () => {
  const m = await client.createLoraModel(baseModel, { ...lora, seed: 2 ** 32 - 1 });
  const out = await m.forwardBackward([datum(prompt.slice(0, 2), 1)], 'cross_entropy', { forwardOnly: true });
  assert(Array.from(out.loss_fn_outputs[0].logprobs.data).every(Number.isFinite), 'forward logprobs are not finite');
  await m.unload();
  return `seed ${2 ** 32 - 1}: ${m.modelId}`;
});

let before;
await check('forward: cross_entropy logprobs equal the sampler logprobs', ['create_model: a LoRA training client', 'sample: logprobs of every sampled token'], async () => {
  const out = await model.forwardBackward([datum(free[0].tokens, 1)], 'cross_entropy', { forwardOnly: true });
  before = completionLogprobs(out.loss_fn_outputs[0], free[0].tokens);
  const gap = maxGap(before, free[0].logprobs);
  assert(gap < 1e-3, `sampler vs trainer logprobs differ by ${gap}`);
  return `max gap ${gap.toExponential(1)}`;
});

await check('forward_backward + optim_step: cross_entropy with signed per-token weights (Troupe\'s policy gradient)', ['forward: cross_entropy logprobs equal the sampler logprobs'], async () => {
  // Troupe sends -dLoss/dlogprob as cross_entropy weights: +1 raises a sequence, -1 lowers it.
  const seq = free[0].tokens;
  const adam = { learning_rate: 0.02, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 };
  const sum = (xs) => xs.reduce((x, y) => x + y, 0);
  const stepWith = async (weight) => {
    await model.forwardBackward([datum(seq, weight)], 'cross_entropy');
    const step = await model.optimStep(adam);
    const out = await model.forwardBackward([datum(seq, 1)], 'cross_entropy', { forwardOnly: true });
    return { logprob: sum(completionLogprobs(out.loss_fn_outputs[0], seq)), metrics: step.metrics ?? {} };
  };
  const up = await stepWith(1);
  const down = await stepWith(-1);
  assert(up.logprob > sum(before), `weight +1: logprob ${sum(before)} -> ${up.logprob}`);
  assert(down.logprob < up.logprob, `weight -1: logprob ${up.logprob} -> ${down.logprob}`);
  return `logprob ${sum(before).toFixed(3)} -> ${up.logprob.toFixed(3)} (+1) -> ${down.logprob.toFixed(3)} (-1); optim_step metrics ${JSON.stringify(up.metrics)}`;
});

let trainedForward;
await check('save_weights_for_sampler: the sampler samples with the trained weights', ['forward_backward + optim_step: cross_entropy with signed per-token weights (Troupe\'s policy gradient)'], async () => {
  // What Troupe's learner does after each step: a sampling session of the current weights.
  const id = await model.saveForSampler();
  const trained = id.startsWith('tinker://') ? await client.createSampler({ modelPath: id }) : new TinkerSampler(client, id);
  const r = await sampleOf(trained, { seed: 7 }, 1);
  const s = r.sequences[0];
  const out = await model.forwardBackward([datum(s.tokens, 1)], 'cross_entropy', { forwardOnly: true });
  trainedForward = completionLogprobs(out.loss_fn_outputs[0], s.tokens);
  const gap = maxGap(trainedForward, s.logprobs);
  assert(gap < 1e-3, `trained sampler vs trainer logprobs differ by ${gap}`);
  return `max gap ${gap.toExponential(1)}`;
});

await check('forward_backward, optim_step and save_weights_for_sampler sent together run in call order', ['save_weights_for_sampler: the sampler samples with the trained weights'], async () => {
  // Troupe's learner pipelines the three: the step must see the gradients and the sampler the step.
  const seq = free[1].tokens;
  const adam = { learning_rate: 0.02, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 };
  const [, step, id] = await Promise.all([model.forwardBackward([datum(seq, 1)], 'cross_entropy'), model.optimStep(adam), model.saveForSampler()]);
  const norm = gradNormOf(step.metrics);
  assert(!(norm === 0), `optim_step applied no gradients (grad norm ${norm}): it ran before the forward_backward sent with it`);
  const trained = id.startsWith('tinker://') ? await client.createSampler({ modelPath: id }) : new TinkerSampler(client, id);
  const r = await sampleOf(trained, { seed: 11 }, 1);
  const out = await model.forwardBackward([datum(r.sequences[0].tokens, 1)], 'cross_entropy', { forwardOnly: true });
  const gap = maxGap(completionLogprobs(out.loss_fn_outputs[0], r.sequences[0].tokens), r.sequences[0].logprobs);
  assert(gap < 1e-3, `the sampler saved after the step differs from the stepped weights by ${gap}: it was saved before the step`);
  return `grad norm ${norm ?? 'not reported'}, sampler gap ${gap.toExponential(1)}`;
});

await check(`policy gradient under loss_reduction ${reduction}: two datums give twice the gradient of one, as a sum`, ['forward: cross_entropy logprobs equal the sampler logprobs'], async () => {
  // What the learner sends (gradient-datums.ts) must mean sum over datums of w * grad logprob
  // whatever the service's own reduction. Learning rate 0: the weights stay; Adam only counts.
  const seq = { promptIds: prompt, responseIds: free[2].tokens };
  const scores = await model.forwardBackward([datum(free[2].tokens, 0)], 'cross_entropy', { forwardOnly: true });
  const logprobs = Array.from(scores.loss_fn_outputs[0].logprobs.data);
  const w = free[2].tokens.map((_, t) => (t % 2 === 0 ? 0.5 : -0.25));
  const normOf = async (copies) => {
    const { lossFn, data } = gradientDatums(Array(copies).fill(seq), Array(copies).fill(w), Array(copies).fill(logprobs), reduction);
    const [, step] = await Promise.all([model.forwardBackward(data, lossFn), model.optimStep({ learning_rate: 0, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 })]);
    return gradNormOf(step.metrics);
  };
  const [one, two] = [await normOf(1), await normOf(2)];
  if (one === undefined || two === undefined) return 'the service reports no grad norm: not checked';
  assert(Math.abs(two / one - 2) < 0.02, `grad norm ${one} for one datum, ${two} for two: a ratio of ${(two / one).toFixed(3)}, not 2; set policy.tinker.loss_reduction to the service's reduction`);
  return `grad norm ${one.toPrecision(4)} for one datum, ${two.toPrecision(4)} for two`;
});

await check('save_weights / load_weights into a fresh training client: training state comes back', ['forward_backward + optim_step: cross_entropy with signed per-token weights (Troupe\'s policy gradient)'], async () => {
  // As on the Tinker service, SkyRL tx takes load_weights only as a model's first request
  // (after create_model): resuming means a fresh training client that loads the saved state.
  const saved = await model.saveWeights('check-state');
  const probe = [datum(free[2].tokens, 1)];
  const logprobsOf = async (m) => completionLogprobs((await m.forwardBackward(probe, 'cross_entropy', { forwardOnly: true })).loss_fn_outputs[0], free[2].tokens);
  const at = await logprobsOf(model);
  await model.forwardBackward(probe, 'cross_entropy');
  await model.optimStep({ learning_rate: 0.05, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 });
  const moved = await logprobsOf(model);
  const fresh = await client.createLoraModel(baseModel, lora);
  await fresh.loadWeights(saved, true);
  const back = await logprobsOf(fresh);
  assert(maxGap(moved, at) > 1e-4, 'the extra step changed nothing');
  assert(maxGap(back, at) < 1e-5, `loaded weights differ from the saved ones by ${maxGap(back, at)}`);
  return `${saved} into ${fresh.modelId}`;
});

await check('save_weights_for_sampler with a name: a tinker:// path a new sampler loads', ['save_weights / load_weights into a fresh training client: training state comes back'], async () => {
  const path = await model.saveForSampler('check-sampler');
  assert(path.startsWith('tinker://'), `path ${path}`);
  const r = await sampleOf(await client.createSampler({ modelPath: path }), { seed: 7 }, 2);
  assert(r.sequences.length === 2, `${r.sequences.length} sequences`);
  return path;
});

if (process.env.SKYRL_CHECK_ONLY !== 'api') {
  // `troupe train` through the service: a two-role team (plan, tool) with one LoRA client per
  // role on one base, warm start off, a few tiny steps; the linear modules only (the head pair,
  // the config's default, was not checked against SkyRL tx).
  const root = mkdtempSync(join(tmpdir(), 'troupe-skyrl-check-'));
  const set = ['policy.kind=tinker', 'policy.map=lora', `policy.tinker.base_url=${baseUrl}`, `model.path=${modelDir}`, 'warm_start.enabled=false', 'model.lora.r=4', 'model.lora.train_unembed=false', 'train.steps=2', 'train.warmup_steps=0', 'train.eval_every=0', 'train.eval_tasks=2', 'train.checkpoint_every=1', 'train.lr=0.02', 'rollout.k=2', 'rollout.tasks=2', 'rollout.max_tokens=8', `policy.tinker.loss_reduction=${reduction}`];
  const quiet = { write: () => true };
  const records = (dir) => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.kind === 'train');
  const train = (dir, extra, options = {}) => runTraining({ config: 'examples/smoke.yaml', runDir: join(root, dir), stream: quiet, set: [...set, ...extra], ...options });

  await check('troupe train, lora team of two roles on one base, max_steps_off_policy 0', [], async () => {
    await train('sync', ['train.max_steps_off_policy=0']);
    const state = JSON.parse(readFileSync(join(root, 'sync', 'checkpoints', 'step-000001', 'state.json'), 'utf8'));
    assert(JSON.stringify(Object.keys(state.policies).sort()) === '["plan","tool"]', `policies ${Object.keys(state.policies)}`);
    const steps = records(join(root, 'sync'));
    assert(steps.length === 2, `${steps.length} train records`);
    return `${steps.map((r) => `step ${r.step}: ${r.samples} samples, ${r.tokens} tokens`).join('; ')}; plan saved as ${state.policies.plan.path}`;
  });

  await check('troupe train, stopped after step 0 and resumed', ['troupe train, lora team of two roles on one base, max_steps_off_policy 0'], async () => {
    await train('split', ['train.max_steps_off_policy=0'], { stopAfterSteps: 1 });
    await train('split', ['train.max_steps_off_policy=0'], { resume: true });
    const [split, whole] = [records(join(root, 'split')), records(join(root, 'sync'))];
    assert(JSON.stringify(split.map((r) => r.step)) === '[0,1]', `steps ${split.map((r) => r.step)}`);
    const tokens = (rs) => JSON.stringify(rs.map((r) => [r.success_rate, r.tokens, r.policies.plan.tokens, r.policies.tool.tokens]));
    return tokens(split) === tokens(whole) ? 'the same samples as the uninterrupted run' : `resumed, but samples differ from the uninterrupted run: ${tokens(split)} vs ${tokens(whole)}`;
  });

  await check('troupe train, max_steps_off_policy 1', [], async () => {
    await train('async', ['train.max_steps_off_policy=1']);
    const steps = records(join(root, 'async'));
    assert(JSON.stringify(steps.map((r) => r.off_policy?.max_staleness)) === '[0,1]', `staleness ${steps.map((r) => r.off_policy?.max_staleness)}`);
    return `staleness ${steps.map((r) => r.off_policy.max_staleness).join(', ')}`;
  });
}

client.close();
console.log(failed === 0 ? 'all checks passed' : `${failed} check(s) FAILED`);
process.exit(failed === 0 ? 0 : 1);
