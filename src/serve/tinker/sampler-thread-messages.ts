/** The messages between sampler-thread.ts and its worker (sampler-thread-worker.ts). */
import type { AdapterTransfer, ModelTransfer, TokenizerTransfer } from '../../engine/worker/model-transfer.js';
import type { KernelsSpec } from '../../engine/worker/start-worker.js';
import type { SampleResponse } from '../../tinker/types.js';
import type { SampleJob } from './sample.js';

export interface SamplerThreadInit {
  readonly kernels: KernelsSpec;
  /** Run the sample requests that wait together as one batch (--batch-sampling). */
  readonly batch: boolean;
}

export type SamplerRequest =
  | { readonly type: 'base'; readonly name: string; readonly model: ModelTransfer; readonly tokenizer: TokenizerTransfer; readonly logitMask: Int32Array; readonly stopIds: readonly number[] }
  | { readonly type: 'adapter'; readonly base: string; readonly adapter: AdapterTransfer }
  | { readonly type: 'drop'; readonly base: string; readonly adapter: string }
  | { readonly type: 'sample'; readonly id: number; readonly base: string; readonly job: SampleJob };

/** A request's answer: the response, or the error it gets (status 400: the request's fault). */
export type SamplerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'sample'; readonly id: number; readonly value: SampleResponse }
  | { readonly type: 'error'; readonly id: number; readonly status: number; readonly message: string };
