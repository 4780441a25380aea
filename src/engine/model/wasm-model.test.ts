import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../../util/rng.js';
import { gradCheck } from '../autograd/grad-check.js';
import { Tape } from '../autograd/tape.js';
import { createReferenceKernels } from '../kernels/reference.js';
import type { Kernels } from '../kernels/types.js';
import { createWasmKernels } from '../kernels/wasm-kernels.js';
import { llamaConfig } from './llama-config.js';
import { LlamaModel } from './llama-model.js';
import type { ScoringPair } from './scoring-plan.js';

/** The model on the WASM kernels: same numbers as on the reference kernels, same gradients. */
const config = llamaConfig({ hidden: 32, layers: 2, heads: 4, kvHeads: 2, intermediate: 48, vocab: 17 });
const pairs: ScoringPair[] = [
  { promptIds: [1, 2, 3, 4, 5], responseIds: [6, 7, 8, 9, 10, 11] },
  { promptIds: [1, 2, 3, 4, 5], responseIds: [12, 13] },
  { promptIds: [16, 0], responseIds: [4, 4, 4] },
];

function scoreWith(kernels: Kernels, source: LlamaModel, adapter?: string): { logprobs: number[]; grads: Map<string, Float32Array> } {
  const model = LlamaModel.fromTensors(kernels, config, source.parameters);
  for (const [name, a] of source.adapters) {
    const copy = model.addAdapter(name, a.config, 0);
    for (const [n, t] of a.parameters) copy.parameters.get(n)!.data.set(t.data);
  }
  const tape = new Tape(kernels);
  const r = model.tokenLogprobs(tape, pairs, { adapter });
  const logprobs = Array.from(r.logprobs.data);
  tape.backward(r.logprobs, Float32Array.from(logprobs, (_, i) => Math.cos(i)));
  tape.dispose();
  const params = adapter ? model.adapters.get(adapter)!.parameters : model.parameters;
  const grads = new Map([...params].map(([n, t]) => [n, Float32Array.from(t.grad!)]));
  model.dispose();
  return { logprobs, grads };
}

for (const threads of [1, 2] as const) {
  test(`wasm (${threads} thread): logprobs and gradients equal the reference kernels' (base and LoRA)`, async () => {
    const wasm = await createWasmKernels({ threads });
    const reference = createReferenceKernels();
    const source = LlamaModel.create(reference, config, { seed: 21 });
    source.addAdapter('a', { r: 4, alpha: 8, targetModules: ['q_proj', 'v_proj', 'up_proj'] }, 3);
    const rng = new Rng(5);
    for (const [n, t] of source.adapters.get('a')!.parameters) if (n.includes('lora_B')) for (let i = 0; i < t.size; i++) t.data[i] = rng.next() - 0.5;
    for (const adapter of [undefined, 'a']) {
      const want = scoreWith(reference, source, adapter);
      const got = scoreWith(wasm, source, adapter);
      got.logprobs.forEach((v, i) => assert.ok(Math.abs(v - want.logprobs[i]!) < 1e-5, `adapter ${adapter} token ${i}: ${v} vs ${want.logprobs[i]}`));
      for (const [name, g] of want.grads) {
        const h = got.grads.get(name)!;
        let diff = 0;
        let norm = 0;
        for (let i = 0; i < g.length; i++) {
          diff += (g[i]! - h[i]!) ** 2;
          norm += g[i]! ** 2;
        }
        assert.ok(Math.sqrt(diff) <= 1e-4 * Math.sqrt(norm) + 1e-7, `${name}: gradients differ by ${Math.sqrt(diff)} (norm ${Math.sqrt(norm)})`);
      }
    }
    await wasm.dispose();
  });
}

test('wasm: whole-model gradient check against finite differences', async () => {
  const kernels = await createWasmKernels({ threads: 1 });
  const model = LlamaModel.create(kernels, llamaConfig({ hidden: 8, layers: 2, heads: 4, kvHeads: 2, intermediate: 12, vocab: 17, tied: true }), { seed: 8 });
  const rng = new Rng(9);
  for (const [name, t] of model.parameters) if (!name.endsWith('norm.weight')) for (let i = 0; i < t.size; i++) t.data[i] = (rng.next() * 2 - 1) * 0.5;
  const errors = gradCheck({ kernels, inputs: [...model.parameters.values()], build: (tape) => model.tokenLogprobs(tape, pairs).logprobs, maxElements: 16, eps: 5e-3 });
  const names = [...model.parameters.keys()];
  errors.forEach((e, i) => assert.ok(e < 1e-3, `${names[i]}: relative error ${e}`));
});
