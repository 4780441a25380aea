/**
 * The worker of sampler-thread.ts: copies of the served bases and of their sampler snapshots
 * (frozen adapters), and the asample work on them. Messages are handled in the order they
 * came, so a snapshot is always installed before the requests that sample it; sample requests
 * that arrive together run as one batch when the server batches (--batch-sampling).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { kernelsFromSpec } from '../../engine/worker/start-worker.js';
import type { Kernels } from '../../engine/kernels/types.js';
import { Sampler } from '../../engine/sampling/generate.js';
import { installAdapter, unpackModel, unpackTokenizer } from '../../engine/worker/model-transfer.js';
import type { LoadedBase } from './base-models.js';
import { sample, sampleMany } from './sample.js';
import type { SamplerReply, SamplerRequest, SamplerThreadInit } from './sampler-thread-messages.js';
import { asApiError } from './future-queue.js';

const init = workerData as SamplerThreadInit;
const port = parentPort!;
const bases = new Map<string, LoadedBase>();
let waiting: Array<Extract<SamplerRequest, { type: 'sample' }>> = [];

function reply(id: number, run: () => SamplerReply): void {
  try {
    port.postMessage(run());
  } catch (error) {
    const e = asApiError(error);
    port.postMessage({ type: 'error', id, status: e.status, message: e.message } satisfies SamplerReply);
  }
}

function answer(id: number, result: unknown): SamplerReply {
  if (result instanceof Error) throw result;
  return { type: 'sample', id, value: result as never };
}

/** Runs the sample requests received so far: one batch per base, or one by one. */
function flush(): void {
  const now = waiting;
  waiting = [];
  const byBase = new Map<string, typeof now>();
  for (const r of now) byBase.set(r.base, [...(byBase.get(r.base) ?? []), r]);
  for (const [name, requests] of byBase) {
    const base = bases.get(name)!;
    if (init.batch && requests.length > 1) {
      let results: unknown[];
      try {
        results = sampleMany(base, requests.map((r) => r.job));
      } catch {
        results = requests.map(() => undefined); // the batch failed as a whole: each alone below
      }
      requests.forEach((r, i) => reply(r.id, () => answer(r.id, results[i] ?? sample(base, r.job.adapter, r.job.request, r.job.seed))));
    } else {
      for (const r of requests) reply(r.id, () => answer(r.id, sample(base, r.job.adapter, r.job.request, r.job.seed)));
    }
  }
}

function handle(kernels: Kernels, request: SamplerRequest): void {
  switch (request.type) {
    case 'base': {
      const model = unpackModel(kernels, request.model);
      const tokenizer = unpackTokenizer(request.tokenizer);
      const sampler = new Sampler(model, tokenizer, { logitMask: request.logitMask });
      bases.set(request.name, { name: request.name, dir: '', model, tokenizer, sampler, stopIds: request.stopIds });
      return;
    }
    case 'adapter':
      installAdapter(bases.get(request.base)!.model, request.adapter);
      return;
    case 'drop': {
      const model = bases.get(request.base)?.model;
      if (model?.adapters.has(request.adapter)) model.removeAdapter(request.adapter);
      return;
    }
    case 'sample':
      if (waiting.length === 0) setImmediate(flush);
      waiting.push(request);
  }
}

kernelsFromSpec(init.kernels).then(
  (kernels) => {
    port.on('message', (request: SamplerRequest) => {
      try {
        handle(kernels, request);
      } catch (error) {
        if (request.type === 'sample') reply(request.id, () => { throw error; });
        else port.postMessage({ type: 'error', id: -1, status: 500, message: `the sampling thread could not take a ${request.type}: ${(error as Error).message}` } satisfies SamplerReply);
      }
    });
    port.postMessage({ type: 'ready' } satisfies SamplerReply);
  },
  (error: Error) => port.postMessage({ type: 'error', id: -1, status: 500, message: error.message } satisfies SamplerReply),
);
