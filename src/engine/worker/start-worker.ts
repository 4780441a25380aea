/**
 * What every engine worker thread shares (the rollout thread of an async run, the Tinker
 * server's sampling thread): the same kernels as this thread with a thread count of its own,
 * and a start that waits for the worker's `{ type: 'ready' }` (or its `{ type: 'error' }`).
 *
 *   const worker = await startWorker(new URL('./my-thread.js', import.meta.url), { workerData: { kernels: kernelsSpec(kernels, 1) } });
 *   // in the thread:
 *   const kernels = await kernelsFromSpec(workerData.kernels);
 *   parentPort.postMessage({ type: 'ready' });
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { createKernels } from '../kernels/get-kernels.js';
import type { Bf16MatmulMode } from '../kernels/bf16-matmul-mode.js';
import type { Kernels } from '../kernels/types.js';
import { TroupeError } from '../../util/errors.js';

/** Kernels as a message: the backend and bf16 mode of `name`, with the thread's own thread count. */
export interface KernelsSpec {
  readonly name: string;
  readonly backend: 'native' | 'wasm';
  readonly bf16Matmul: Bf16MatmulMode;
  readonly threads: number;
}

export function kernelsSpec(kernels: Kernels, threads: number): KernelsSpec {
  return { name: kernels.name, backend: kernels.name.startsWith('native') ? 'native' : 'wasm', bf16Matmul: kernels.bf16Matmul, threads };
}

/** The kernels a spec describes, made in this thread; the same instruction set, or an error. */
export async function kernelsFromSpec(spec: KernelsSpec): Promise<Kernels> {
  const kernels = await createKernels({ backend: spec.backend, threads: spec.threads, bf16Matmul: spec.bf16Matmul });
  if (kernels.name !== spec.name) throw new TroupeError('engine', `the worker thread got kernels ${kernels.name}, this thread uses ${spec.name}`);
  return kernels;
}

/** Starts `url` and resolves once it posts `{ type: 'ready' }`; an error before that terminates it and rejects with its reason. */
export async function startWorker(url: URL, options: WorkerOptions): Promise<Worker> {
  const worker = new Worker(url, options);
  // Only these two listeners come off again: Node's Worker keeps listeners of its own.
  let onMessage: ((reply: { type: string; message?: string }) => void) | undefined;
  let onError: ((error: Error) => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      onMessage = (reply) => (reply.type === 'ready' ? resolve() : reject(new Error(reply.type === 'error' ? reply.message : `unexpected first message ${reply.type}`)));
      onError = reject;
      worker.on('message', onMessage);
      worker.on('error', onError);
    });
  } catch (error) {
    await worker.terminate();
    throw error;
  } finally {
    worker.off('message', onMessage!);
    worker.off('error', onError!);
  }
  return worker;
}
