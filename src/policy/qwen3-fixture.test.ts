// The real Qwen3 tokenizer and chat template on a tiny random Qwen3 model with the real
// 151,936-row vocabulary (src/engine/io/qwen3-model.test-helper.ts): the padded rows, the
// chat template with and without thinking, the tool-call tokens, and the stop ids of
// generation_config.json, through the same calls a training run makes (a thinking reply
// read by a role: src/rollout/qwen3-thinking.test.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Tape } from '../engine/autograd/tape.js';
import { loadModel } from '../engine/io/model-checkpoint.js';
import { makeQwen3ModelDir, QWEN3, QWEN3_IDS, QWEN3_ROWS } from '../engine/io/qwen3-model.test-helper.js';
import { getKernels } from '../engine/kernels/get-kernels.js';
import type { Kernels } from '../engine/kernels/types.js';
import type { LlamaModel } from '../engine/model/llama-model.js';
import { loadChatTemplate } from '../engine/tokenizer/chat-template.js';
import { idsWithoutToken } from '../engine/tokenizer/ids-without-token.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { EmbeddedPolicy } from './embedded-policy.js';
import { promptFormatOf } from './prompt-format.js';

let kernels: Kernels;
let dir: string;
let stopping: string;
/** The random model of `dir` with its tokenizer, shared by the tests that do not change it. */
let loaded: { model: LlamaModel; tokenizer: Tokenizer };

/**
 * Makes greedy decoding end at once on one of generation_config's two stop ids: the final norm
 * keeps only hidden unit 0, and the (tied) head reads unit 0 as +50 for <|im_end|> and -50 for
 * <|endoftext|>, 0 for every other id, so whichever sign unit 0 has, a stop id is the argmax.
 */
function stopAtOnce(model: LlamaModel): void {
  const norm = model.parameters.get('model.norm.weight')!.data;
  norm.fill(0);
  norm[0] = 1;
  const embed = model.parameters.get('model.embed_tokens.weight')!.data;
  const hidden = model.config.hidden_size;
  for (let id = 0; id < QWEN3_ROWS; id++) embed[id * hidden] = id === QWEN3.imEnd ? 50 : id === QWEN3.endOfText ? -50 : 0;
}

before(async () => {
  kernels = await getKernels();
  dir = makeQwen3ModelDir(kernels);
  stopping = makeQwen3ModelDir(kernels, { shape: stopAtOnce });
  loaded = loadModel(kernels, dir);
});

after(() => loaded.model.dispose());

const user = [{ role: 'user', content: 'GRID 1' }];

test('Qwen3 vocabulary: 151,669 ids over 151,936 rows; the 267 padded ids decode to nothing, are masked, and the masked sampler matches the learner to 1e-5', async () => {
  const { model, tokenizer } = loaded;
  assert.equal(tokenizer.vocabSize, QWEN3_IDS);
  assert.deepEqual(tokenizer.special, { pad: QWEN3.endOfText, bos: undefined, eos: QWEN3.imEnd, unk: undefined });
  const mask = idsWithoutToken(tokenizer, model.config.vocab_size);
  assert.deepEqual([mask.length, mask[0], mask.at(-1)], [QWEN3_ROWS - QWEN3_IDS, QWEN3_IDS, QWEN3_ROWS - 1]);
  assert.equal(tokenizer.decode([QWEN3.think, QWEN3_IDS, ...tokenizer.encode(' U'), QWEN3_ROWS - 1]), '<think> U');

  const policy = new EmbeddedPolicy({ id: 'p', model, tokenizer, logitMask: mask });
  const [samples] = await policy.sample([{ prompt: 'GRID 1', n: 4, seed: 2, temperature: 1, topP: 1, topK: 0, maxTokens: 12, stop: [] }]);
  const tape = new Tape(kernels, { grad: false });
  try {
    const scored = model.tokenLogprobs(tape, samples!.map((s) => ({ promptIds: s.promptIds!, responseIds: s.ids! })), { logitMask: mask });
    const recorded = samples!.flatMap((s) => s.logprobs!);
    const gap = Math.max(...Array.from(scored.logprobs.data, (l, i) => Math.abs(l - recorded[i]!)));
    assert.ok(gap <= 1e-5, `sampler vs learner with the mask: ${gap}`);
  } finally {
    tape.dispose();
  }
  assert.ok(samples!.flatMap((s) => s.ids!).every((id) => id < QWEN3_IDS));
});

test('Qwen3 chat template: thinking on (the default) and off, special tokens as single ids', () => {
  const { model, tokenizer } = loaded;
  const thinking = promptFormatOf(dir, tokenizer, { format: 'natural' }).chat!;
  const quiet = promptFormatOf(dir, tokenizer, { format: 'natural', enableThinking: false }).chat!;
  const generate = { addGenerationPrompt: true };
  assert.equal(thinking.template.render(user, { ...generate, enableThinking: thinking.enableThinking }), '<|im_start|>user\nGRID 1<|im_end|>\n<|im_start|>assistant\n');
  assert.equal(quiet.template.render(user, { ...generate, enableThinking: quiet.enableThinking }), '<|im_start|>user\nGRID 1<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
  const on = new EmbeddedPolicy({ id: 'p', model, tokenizer, prompting: { chat: thinking } }).encodePrompt('GRID 1');
  const off = new EmbeddedPolicy({ id: 'p', model, tokenizer, prompting: { chat: quiet } }).encodePrompt('GRID 1');
  assert.deepEqual(on.filter((id) => id >= QWEN3.endOfText), [QWEN3.imStart, QWEN3.imEnd, QWEN3.imStart]);
  assert.deepEqual(off.filter((id) => id >= QWEN3.endOfText), [QWEN3.imStart, QWEN3.imEnd, QWEN3.imStart, QWEN3.think, QWEN3.thinkEnd]);
  assert.deepEqual(off.slice(0, on.length), on, 'thinking off only appends the empty think block');
  assert.equal(tokenizer.decode(off), quiet.template.render(user, { ...generate, enableThinking: false }));
});

test('Qwen3 tool calls: the template lists tools and renders calls with <tool_call>, single ids that decode back (not special)', () => {
  const { tokenizer } = loaded;
  const chat = loadChatTemplate(dir, tokenizer);
  const tools = [{ type: 'function', function: { name: 'bfs', description: 'Shortest path on a grid', parameters: { type: 'object', properties: { grid: { type: 'string' } }, required: ['grid'] } } }];
  const withTools = chat.render(user, { addGenerationPrompt: true, kwargs: { tools } });
  assert.match(withTools, /^<\|im_start\|>system\n# Tools\n/);
  assert.ok(withTools.includes('<tools>\n{"type": "function", "function": {"name": "bfs"'), withTools);
  assert.ok(withTools.includes('<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'));

  const call = [...user, { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'bfs', arguments: { grid: 'S.G' } } }] }, { role: 'tool', content: 'R, R' }];
  const history = chat.render(call, { addGenerationPrompt: false });
  assert.ok(history.includes('<|im_start|>assistant\n<tool_call>\n{"name": "bfs", "arguments": {"grid": "S.G"}}\n</tool_call><|im_end|>'), history);
  assert.ok(history.includes('<|im_start|>user\n<tool_response>\nR, R\n</tool_response><|im_end|>'), history);

  const reply = '<tool_call>\n{"name": "bfs", "arguments": {"grid": "S.G"}}\n</tool_call>';
  const ids = tokenizer.encode(reply);
  assert.equal(ids[0], QWEN3.toolCall);
  assert.equal(ids.at(-1), QWEN3.toolCallEnd);
  assert.equal(tokenizer.decode(ids, { skipSpecial: true }), reply, 'tool-call tokens are not special: a sampled call keeps its tags');
});

test('Qwen3 stop ids come from generation_config.json: the policy ends at <|im_end|> or <|endoftext|> with no text', async () => {
  const { model, tokenizer } = loadModel(kernels, stopping);
  try {
    const prompting = promptFormatOf(stopping, tokenizer, { format: 'natural', enableThinking: false });
    assert.deepEqual(prompting.stopIds, [QWEN3.endOfText, QWEN3.imEnd]);
    const request = { prompt: 'GRID 1', n: 1, seed: 1, temperature: 0, topP: 1, topK: 0, maxTokens: 5, stop: [] };
    const [[stopped]] = await new EmbeddedPolicy({ id: 'p', model, tokenizer, prompting }).sample([request]);
    assert.equal(stopped!.finishReason, 'stop');
    assert.equal(stopped!.ids!.length, 1);
    assert.ok([QWEN3.imEnd, QWEN3.endOfText].includes(stopped!.ids![0] as never), `stopped on ${stopped!.ids}`);
    assert.equal(stopped!.text, '');
    const [[free]] = await new EmbeddedPolicy({ id: 'p', model, tokenizer, prompting: { ...prompting, stopIds: [] } }).sample([request]);
    assert.deepEqual([free!.finishReason, free!.ids], ['length', new Array(5).fill(stopped!.ids![0])], 'without stop ids the same token repeats');
  } finally {
    model.dispose();
  }
});
