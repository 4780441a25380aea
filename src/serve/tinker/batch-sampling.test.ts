// `troupe serve --tinker --batch-sampling`: concurrent asample requests run as one batch and
// answer what each would answer alone (the same tokens for the same seeds, prompt logprobs
// within float32 noise), for the base, a LoRA sampler and a head-LoRA sampler together.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceKernels } from '../../engine/kernels/reference.js';
import { TinkerClient, TinkerSampler } from '../../tinker/tinker-client.js';
import { DEFAULT_ADAM, type SampleRequest } from '../../tinker/types.js';
import { makeTinyModelDir, type TinyModelDir } from '../tiny-model.test-helper.js';
import { startTinkerServer, type RunningTinkerServer } from './tinker-server.js';

let folder: TinyModelDir;
const servers: RunningTinkerServer[] = [];

before(() => {
  folder = makeTinyModelDir();
});

after(async () => {
  for (const s of servers) await s.close();
  folder.remove();
});

async function connect(batchSampling: boolean): Promise<{ client: TinkerClient; server: RunningTinkerServer }> {
  const server = await startTinkerServer({ kernels: createReferenceKernels(), models: [{ name: 'tiny', dir: folder.dir }], port: 0, pollWaitMs: 200, batchSampling, batchWindowMs: 50, log: () => {} });
  servers.push(server);
  return { server, client: await TinkerClient.connect({ baseUrl: server.url, apiKey: 'tml-test', maxRetries: 1, backoffMs: 10 }) };
}

const requests: SampleRequest[] = [
  { prompt: { chunks: [{ tokens: [3, 17, 42] }] }, num_samples: 4, sampling_params: { max_tokens: 5, seed: 11, temperature: 1 } },
  { prompt: { chunks: [{ tokens: [3, 17, 42, 8, 25] }] }, num_samples: 2, sampling_params: { max_tokens: 3, seed: 12, temperature: 1 }, prompt_logprobs: true },
  { prompt: { chunks: [{ tokens: [3, 17, 42, 8, 30] }] }, num_samples: 1, sampling_params: { max_tokens: 1, seed: 13 }, prompt_logprobs: true },
  { prompt: { chunks: [{ tokens: [9, 9] }] }, num_samples: 3, sampling_params: { max_tokens: 4, seed: 14, temperature: 0.7 } },
];

/** Trains one step of a LoRA (with the output head when `unembed`) and returns a sampler of it. */
async function trainedSampler(client: TinkerClient, unembed: boolean): Promise<TinkerSampler> {
  const model = await client.createLoraModel('tiny', { rank: 4, seed: 3, train_unembed: unembed });
  const tokens = [3, 17, 42, 8, 25, 33];
  await model.forwardBackward([{ model_input: { chunks: [{ tokens: tokens.slice(0, -1) }] }, loss_fn_inputs: { target_tokens: { dtype: 'int64', shape: [5], data: tokens.slice(1) } } }], 'cross_entropy');
  await model.optimStep({ ...DEFAULT_ADAM, learning_rate: 0.05 });
  return new TinkerSampler(client, await model.saveForSampler());
}

test('with --batch-sampling, concurrent asample requests answer what each answers alone on a server without it', async () => {
  const answers = [];
  const largest: number[] = [];
  for (const batch of [false, true]) {
    const { client, server } = await connect(batch);
    const base = await client.createSampler({ baseModel: 'tiny' });
    const samplers = [base, await trainedSampler(client, false), await trainedSampler(client, true)];
    const sent = samplers.flatMap((s) => requests.map((r) => s.sample(r)));
    answers.push({ results: await Promise.all(sent) });
    largest.push(server.service.queue.largestBatch);
    client.close();
  }
  assert.equal(largest[0], 1, 'without --batch-sampling every request runs alone');
  assert.ok(largest[1]! > 1, `with it some requests ran together (at most ${largest[1]})`);
  const [alone, together] = answers;
  alone!.results.forEach((a, i) => {
    const b = together!.results[i]!;
    assert.deepEqual(b.sequences.map((s) => s.tokens), a.sequences.map((s) => s.tokens), `request ${i}: the same tokens`);
    b.sequences.forEach((s, j) => s.logprobs!.forEach((lp, t) => assert.ok(Math.abs(lp - a.sequences[j]!.logprobs![t]!) < 1e-5, `request ${i} sample ${j} token ${t}`)));
    assert.equal(b.prompt_logprobs?.length, a.prompt_logprobs?.length);
    b.prompt_logprobs?.forEach((lp, t) => assert.ok(lp === null ? a.prompt_logprobs![t] === null : Math.abs(lp - a.prompt_logprobs![t]!) < 1e-5, `request ${i} prompt position ${t}: ${lp} vs ${a.prompt_logprobs![t]}`));
  });
});
