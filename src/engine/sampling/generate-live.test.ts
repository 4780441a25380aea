// Sampler.generateLive: the same Generations as generate, each token reported as it is drawn,
// and the event loop running between decode steps (what lets `troupe serve` stream).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomLlamaTensors } from '../io/random-tensors.js';
import { createReferenceKernels } from '../kernels/reference.js';
import { llamaConfig } from '../model/llama-config.js';
import { LlamaModel } from '../model/llama-model.js';
import { CharTokenizer } from '../tokenizer/char-tokenizer.js';
import { Sampler } from './generate.js';
import type { GenerateRequest, TokenEvent } from './types.js';

const kernels = createReferenceKernels();
const tokenizer = CharTokenizer.standard();
const config = llamaConfig({ hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 48, vocab: 64, context: 48 });
const model = LlamaModel.fromTensors(kernels, config, randomLlamaTensors(config, 1, 0.25));
const sampler = new Sampler(model, tokenizer);
const prompt = (text: string) => [tokenizer.special.bos!, ...tokenizer.encode(text)];
const requests: GenerateRequest[] = [
  { promptIds: prompt('PLAN 1/4'), n: 2, seed: 3, maxTokens: 12, temperature: 1 },
  { promptIds: prompt('GRID'), n: 1, seed: 4, maxTokens: 7, temperature: 0.7, stop: ['\n'] },
];

/** Runs `generateLive`, logging token events and the event-loop turns that happen meanwhile. */
async function liveWithLog(): Promise<{ log: string[]; events: TokenEvent[]; result: Awaited<ReturnType<Sampler['generateLive']>> }> {
  const log: string[] = [];
  const events: TokenEvent[] = [];
  let ticking = true;
  const tick = () => {
    if (!ticking) return;
    log.push('tick');
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await sampler.generateLive(requests, {
    onToken: (t) => {
      events.push({ ...t, logits: t.logits.slice() });
      log.push(`token ${t.request}.${t.index}`);
    },
  });
  ticking = false;
  return { log, events, result };
}

test('generateLive returns what generate returns and reports every token, in order, as drawn', async () => {
  const expected = sampler.generate(requests);
  const { events, result } = await liveWithLog();
  assert.deepEqual(result, expected, 'streaming changes nothing that is sampled');
  for (const [r, row] of expected.entries()) {
    for (const [i, g] of row.entries()) {
      const mine = events.filter((e) => e.request === r && e.index === i);
      assert.deepEqual(mine.map((e) => e.id), g.ids, `request ${r} continuation ${i}: ids in order`);
      assert.deepEqual(mine.map((e) => e.logprob), g.logprobs);
      assert.deepEqual(mine.map((e) => e.generation !== undefined), g.ids.map((_, k) => k === g.ids.length - 1), 'only the last token carries the Generation');
      assert.deepEqual(mine.at(-1)!.generation, g);
      for (const e of mine) {
        // The logits are the ones the token was drawn from: its logprob is their log-softmax.
        const max = Math.max(...e.logits);
        const logZ = max + Math.log(e.logits.reduce((a, x) => a + Math.exp(x - max), 0));
        assert.ok(Math.abs(e.logits[e.id]! - logZ - e.logprob) < 1e-4, 'logprob matches the reported logits');
      }
    }
  }
  const syncEvents: string[] = [];
  sampler.generate(requests, { onToken: (t) => syncEvents.push(`${t.request}.${t.index}:${t.id}`) });
  assert.deepEqual(syncEvents, events.map((t) => `${t.request}.${t.index}:${t.id}`), 'generate reports the same tokens in the same order');
});

test('the event loop runs between decode steps of generateLive, never inside generate', async () => {
  const { log } = await liveWithLog();
  const firstToken = log.findIndex((e) => e.startsWith('token'));
  const lastToken = log.length - 1 - [...log].reverse().findIndex((e) => e.startsWith('token'));
  const ticksBetween = log.slice(firstToken, lastToken).filter((e) => e === 'tick').length;
  const steps = Math.max(...sampler.generate(requests).flat().map((g) => g.ids.length));
  assert.ok(ticksBetween >= steps - 2, `other work ran between tokens (${ticksBetween} turns over ${steps} steps)`);

  let ticked = false;
  setImmediate(() => (ticked = true));
  sampler.generate(requests, { onToken: () => assert.equal(ticked, false, 'generate runs straight through') });
});
