/**
 * Shared by the parity tests: where the transformers-made model fixtures live
 * (scripts/make-model-fixtures.py), their reference log-probs, and the two ways the engine
 * computes the same numbers (autograd scoring, KV-cache decoding).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tape } from '../autograd/tape.js';
import type { LlamaModel } from '../model/llama-model.js';
import { LlamaInference } from '../sampling/llama-inference.js';
import { repoRoot } from '../../util/repo-root.test-helper.js';

export const MODEL_FIXTURES = join(repoRoot(), 'src', 'engine', 'io', 'fixtures', 'models');

export interface Reference {
  readonly sequences: readonly (readonly number[])[];
  readonly logprobs: readonly (readonly number[])[];
}

export function readReference(name: string): Reference {
  return JSON.parse(readFileSync(join(MODEL_FIXTURES, name, 'reference.json'), 'utf8')) as Reference;
}

export function maxAbsDifference(actual: readonly number[], expected: readonly number[]): number {
  assert.equal(actual.length, expected.length, 'number of log-probs');
  return actual.reduce((worst, a, i) => Math.max(worst, Math.abs(a - expected[i]!)), 0);
}

/** Log-probs of every token after the first, through tokenLogprobs with a `split`-token prompt. */
export function autogradLogprobs(model: LlamaModel, sequences: Reference['sequences'], split: number, adapter?: string): number[][] {
  const tape = new Tape(model.kernels);
  const pairs = sequences.map((ids) => ({ promptIds: ids.slice(0, split), responseIds: ids.slice(split) }));
  const r = model.tokenLogprobs(tape, pairs, { adapter });
  const out = pairs.map((_, b) => Array.from(r.logprobs.data.subarray(r.offsets[b], r.offsets[b + 1])));
  tape.dispose();
  return out;
}

/** The same log-probs through the KV-cache decoder: a `split`-token prefill, then one token a step. */
export function decodeLogprobs(model: LlamaModel, ids: readonly number[], split: number, adapter?: string): number[] {
  const inference = new LlamaInference(model);
  const cache = inference.newCache(ids.length);
  const V = model.config.vocab_size;
  const out: number[] = [];
  let logits = inference.forward([{ tokens: ids.slice(0, split), cache, adapter }]);
  for (let t = split; t < ids.length; t++) {
    const row = Float64Array.from(logits.subarray(0, V));
    const max = Math.max(...row);
    const logZ = max + Math.log(row.reduce((s, v) => s + Math.exp(v - max), 0));
    out.push(row[ids[t]!]! - logZ);
    if (t + 1 < ids.length) logits = inference.forward([{ tokens: [ids[t]!], cache, adapter }]);
  }
  cache.free();
  inference.dispose();
  return out;
}

