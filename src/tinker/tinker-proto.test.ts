// The codec against messages serialized by the official SDK's generated protobuf code
// (fixtures/proto-messages.json, made by scripts/tinker-proto-fixtures.py), and round trips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  decodeForwardBackwardOutput,
  decodeForwardBackwardRequest,
  decodeSampleResponse,
  encodeForwardBackwardOutput,
  encodeForwardBackwardRequest,
  encodeSampleResponse,
} from './tinker-proto.js';
import { readFields } from './protobuf-wire.js';

// Tests run from dist/src/tinker; the fixture stays in src/tinker (tsc does not copy JSON).
const fixturePath = fileURLToPath(new URL('../../../src/tinker/fixtures/proto-messages.json', import.meta.url));
const fixtures = JSON.parse(readFileSync(fixturePath, 'utf8')) as Record<string, string>;
const bytes = (name: string) => Uint8Array.from(Buffer.from(fixtures[name]!, 'hex'));

test('decodes a ForwardBackwardRequest serialized by the SDK', () => {
  const r = decodeForwardBackwardRequest(bytes('forward_backward_request'));
  assert.equal(r.model_id, 'sess-1:train:0');
  assert.equal(r.seq_id, 3);
  assert.equal(r.loss_fn, 'ppo');
  assert.equal(r.forward_only, true);
  assert.deepEqual(r.loss_fn_config, { clip_low_threshold: 0.75 });
  assert.equal(r.data.length, 1);
  assert.deepEqual(r.data[0]!.model_input.chunks[0]!.tokens, [5, 6, 7, 8]);
  const targets = r.data[0]!.loss_fn_inputs.target_tokens!;
  assert.equal(targets.dtype, 'int64');
  assert.deepEqual(Array.from(targets.data), [6, 7, 8, 9]);
  assert.deepEqual(targets.shape, [4]);
  const adv = r.data[0]!.loss_fn_inputs.advantages!;
  assert.equal(adv.dtype, 'float32');
  assert.deepEqual(Array.from(adv.data), [0.5, -1.25, 0, 2]);
});

test('our ForwardBackwardRequest decodes back to the same request', () => {
  const r = decodeForwardBackwardRequest(bytes('forward_backward_request'));
  const again = decodeForwardBackwardRequest(encodeForwardBackwardRequest(r));
  assert.deepEqual({ ...again, data: again.data.map((d) => ({ ...d, loss_fn_inputs: Object.fromEntries(Object.entries(d.loss_fn_inputs).map(([k, t]) => [k, Array.from(t.data)])) })) },
    { ...r, data: r.data.map((d) => ({ ...d, loss_fn_inputs: Object.fromEntries(Object.entries(d.loss_fn_inputs).map(([k, t]) => [k, Array.from(t.data)])) })) });
});

test('decodes the SDK ForwardBackwardOutput and re-encodes fields the SDK reads the same way', () => {
  const out = decodeForwardBackwardOutput(bytes('forward_backward_output'));
  assert.deepEqual(out.metrics, { 'loss:sum': 1.5 });
  assert.equal(out.loss_fn_outputs.length, 2);
  assert.deepEqual(Array.from(out.loss_fn_outputs[0]!.logprobs!.data), [-0.5, -1]);
  assert.deepEqual(Array.from(out.loss_fn_outputs[1]!.logprobs!.data), [-2]);
  const again = decodeForwardBackwardOutput(encodeForwardBackwardOutput(out));
  assert.deepEqual(again.metrics, out.metrics);
  assert.deepEqual(again.loss_fn_outputs.map((d) => Array.from(d.logprobs!.data)), [[-0.5, -1], [-2]]);
});

test('encodes a SampleResponse byte for byte as the SDK schema does', () => {
  const r = decodeSampleResponse(bytes('sample_response'));
  assert.deepEqual(r.prompt_logprobs, [null, -1.5]);
  assert.deepEqual(r.sequences, [
    { stop_reason: 'length', tokens: [3, 4], logprobs: [-0.25, -3] },
    { stop_reason: 'stop', tokens: [1] },
  ]);
  assert.deepEqual(Buffer.from(encodeSampleResponse(r)).toString('hex'), fixtures.sample_response);
});

test('truncated messages are input errors, not crashes', () => {
  const b = bytes('forward_backward_request');
  assert.throws(() => decodeForwardBackwardRequest(b.subarray(0, b.length - 3)), /protobuf body/);
  assert.throws(() => readFields(Uint8Array.from([0x0a, 0x05, 0x01])), /runs past the end/);
});
