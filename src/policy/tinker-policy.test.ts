// A TinkerPolicy formats prompts and ends completions exactly as an EmbeddedPolicy of the same
// model folder: natural-format prompts through the folder's chat template, completions cut at
// the folder's stop tokens (sent to the service as stop ids, or cut here when the request also
// has stop strings), so the same request gives the same ids whichever backend samples it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModel } from '../engine/io/model-checkpoint.js';
import { createReferenceKernels } from '../engine/kernels/reference.js';
import type { LlamaModel } from '../engine/model/llama-model.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { startTinkerServer, type RunningTinkerServer } from '../serve/tinker/tinker-server.js';
import { makeTinyModelDir, type TinyModelDir } from '../serve/tiny-model.test-helper.js';
import { TinkerClient, type TinkerSampler } from '../tinker/tinker-client.js';
import { EmbeddedPolicy } from './embedded-policy.js';
import { promptFormatOf } from './prompt-format.js';
import { TinkerPolicy } from './tinker-policy.js';
import type { Completion, SampleRequest } from './types.js';

const template = '{% for m in messages %}[{{ m.role | upper }}]{{ m.content }}{% endfor %}{% if add_generation_prompt %}[A]{% endif %}';
const request: SampleRequest = { prompt: 'GRID 1', n: 6, seed: 11, temperature: 1, topP: 1, topK: 0, maxTokens: 10, stop: [] };

let folder: TinyModelDir;
let server: RunningTinkerServer;
let client: TinkerClient;
let model: LlamaModel;
let tokenizer: Tokenizer;

before(async () => {
  folder = makeTinyModelDir({ chatTemplate: template, seed: 12 });
  ({ model, tokenizer } = loadModel(createReferenceKernels(), folder.dir));
  server = await startTinkerServer({ kernels: createReferenceKernels(), models: [{ name: 'tiny', dir: folder.dir }], port: 0, pollWaitMs: 200, log: () => {} });
  client = await TinkerClient.connect({ baseUrl: server.url, apiKey: 'tml-test', maxRetries: 1, backoffMs: 10 });
});

after(async () => {
  client.close();
  await server.close();
  model.dispose();
  folder.remove();
});

/** Completions of both backends, equal up to the float32 rounding of logprobs on the wire. */
function assertSame(tinker: Completion[], embedded: Completion[]): void {
  assert.deepEqual(tinker.map((c) => ({ ...c, logprobs: [] })), embedded.map((c) => ({ ...c, logprobs: [] })));
  tinker.forEach((c, i) => c.logprobs!.forEach((lp, k) => assert.ok(Math.abs(lp - embedded[i]!.logprobs![k]!) < 1e-5, `completion ${i} logprob ${k}`)));
}

test('natural-format prompts are the chat template ids and stop tokens end completions, as on the embedded engine', async () => {
  const unstopped = promptFormatOf(folder.dir, tokenizer, { format: 'natural' });
  const [free] = await new EmbeddedPolicy({ id: 'p', model, tokenizer, prompting: unstopped }).sample([request]);
  // A stop token that some completion samples after its first token, so stopping changes it.
  const stopId = free!.flatMap((c) => c.ids!.slice(1)).find((id) => id !== tokenizer.special.eos)!;
  assert.notEqual(stopId, undefined);
  writeFileSync(join(folder.dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [stopId] }));
  const prompting = promptFormatOf(folder.dir, tokenizer, { format: 'natural' });
  assert.ok(prompting.chat !== undefined && prompting.stopIds!.includes(stopId));

  const embedded = new EmbeddedPolicy({ id: 'p', model, tokenizer, prompting });
  const tinker = new TinkerPolicy({ id: 'p', tokenizer, prompting, sampler: await client.createSampler({ baseModel: 'tiny' }) });
  const [[e], [t]] = [await embedded.sample([request]), await tinker.sample([request])];
  assert.deepEqual(t![0]!.promptIds, tokenizer.encode('[USER]GRID 1[A]'), 'the template, not BOS + text');
  assert.ok(e!.some((c) => c.finishReason === 'stop' && c.ids!.at(-1) === stopId), 'some completion ends at the stop token');
  assertSame(t!, e!);

  // With a stop string too, the service is sent the string and the stop token is cut here.
  const both = { ...request, stop: ['Z'] };
  const [[e2], [t2]] = [await embedded.sample([both]), await tinker.sample([both])];
  assert.ok(e2!.some((c) => c.ids!.at(-1) === stopId), 'the stop token still ends a completion');
  assertSame(t2!, e2!);
});

test('compact prompts stay BOS + text on both backends', async () => {
  const prompting = promptFormatOf(folder.dir, tokenizer, { format: 'compact' });
  const [[t]] = await new TinkerPolicy({ id: 'p', tokenizer, prompting, sampler: await client.createSampler({ baseModel: 'tiny' }) }).sample([request]);
  assert.deepEqual(t!.promptIds, [tokenizer.special.bos!, ...tokenizer.encode('GRID 1')]);
});

test('seeds on the wire fit a signed 32-bit integer with room for seed + i (SkyRL tx), and both backends still sample alike', async () => {
  // A rollout's seed as derived in the SkyRL tx report: above 2^31 - 1, which SkyRL refuses.
  const big = { ...request, seed: 4106208882 };
  const sent: number[] = [];
  const recording = { sample: async (body: { num_samples?: number; sampling_params: { seed?: number | null } }) => {
    sent.push(body.sampling_params.seed!, body.num_samples!);
    return { sequences: [] };
  } } as unknown as TinkerSampler;
  await new TinkerPolicy({ id: 'p', tokenizer, sampler: recording }).sample([big, { ...big, seed: 2 ** 32 - 1 }, { ...big, seed: 11 }]);
  for (let i = 0; i < sent.length; i += 2) {
    assert.ok(Number.isInteger(sent[i]) && sent[i]! >= 0 && sent[i]! + sent[i + 1]! - 1 <= 2 ** 31 - 1, `seed ${sent[i]} with ${sent[i + 1]} samples`);
  }
  assert.equal(sent[4], 11, 'a small seed goes out unchanged');

  const prompting = promptFormatOf(folder.dir, tokenizer, { format: 'compact' });
  const [e] = await new EmbeddedPolicy({ id: 'p', model, tokenizer, prompting }).sample([big]);
  const [t] = await new TinkerPolicy({ id: 'p', tokenizer, prompting, sampler: await client.createSampler({ baseModel: 'tiny' }) }).sample([big]);
  assertSame(t!, e!);
});
