/**
 * The Tinker API's vocabulary, shared by Troupe's Tinker server (serve/tinker/) and its
 * Tinker client backend (policy/). Read this first. Shapes follow the official Python SDK
 * (0.25.0, `tinker/types/`); field names stay in the API's snake_case so that a body parsed
 * from JSON is already one of these.
 *
 * The service holds base models; a client opens a *session*, creates *training models* (a
 * LoRA adapter on a base, id `<session>:train:<n>`), and drives them with training ops
 * (`forward_backward`, `optim_step`, `save_weights`, `save_weights_for_sampler`,
 * `load_weights`). Each training op carries `seq_id` (1, 2, 3, ... per model) and the
 * service runs them in that order. Sampling goes through *sampling sessions*: a snapshot of
 * a model's weights (from `save_weights_for_sampler`, or a `tinker://` path, or the bare
 * base) that `asample` requests name.
 *
 * Every op that does work is a *future*: the submit route answers `{request_id}` at once,
 * and the client polls `retrieve_future` until the result is ready. Not ready yet is a 200
 * `{type: "try_again"}` (or a 408); a failed op is a 200 `{error, category}`. Results of
 * `forward_backward` and `asample` travel as protobuf (tinker-proto.ts) when the poll's
 * `Accept` asks for `application/x-protobuf`; everything else is JSON.
 */

/** Every route lives under this prefix. */
export const API_PREFIX = '/api/v1';

/** One chunk of a model input; Troupe serves text-only models, so only token chunks. */
export interface EncodedTextChunk {
  readonly type?: 'encoded_text';
  readonly tokens: readonly number[];
}

export interface ModelInput {
  readonly chunks: readonly EncodedTextChunk[];
}

/** Dtypes of the public wire; the protobuf also names int32 and bfloat16 (never sent by the SDK). */
export type TensorDtype = 'float32' | 'int64';

/** A flat tensor of a loss input or output (row-major; shape [N] for per-token values). */
export interface TensorData {
  readonly dtype: TensorDtype;
  readonly shape: readonly number[];
  readonly data: Float32Array | Float64Array | number[];
}

/** One training example: the tokens the model reads and the loss function's inputs, by name. */
export interface Datum {
  readonly model_input: ModelInput;
  readonly loss_fn_inputs: Readonly<Record<string, TensorData>>;
}

export type LossFnName = 'cross_entropy' | 'importance_sampling' | 'ppo' | 'cispo';
export const LOSS_FNS: readonly LossFnName[] = ['cross_entropy', 'importance_sampling', 'ppo', 'cispo'];

export interface ForwardBackwardRequest {
  readonly model_id: string;
  readonly seq_id: number;
  readonly data: readonly Datum[];
  readonly loss_fn: string;
  readonly loss_fn_config: Readonly<Record<string, number>>;
  /** `forward()`: compute outputs and metrics, accumulate no gradient. */
  readonly forward_only: boolean;
}

/** Per-datum outputs by field name (`logprobs`, `elementwise_loss`), plus `name:reduction` metrics. */
export interface ForwardBackwardOutput {
  readonly loss_fn_output_type: string;
  readonly loss_fn_outputs: ReadonlyArray<Readonly<Record<string, TensorData>>>;
  readonly metrics: Readonly<Record<string, number>>;
}

export interface AdamParams {
  readonly learning_rate: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weight_decay: number;
  /** 0 = no clipping. */
  readonly grad_clip_norm: number;
}

/** Tinker's defaults (AdamParams in the SDK). */
export const DEFAULT_ADAM: AdamParams = { learning_rate: 1e-4, beta1: 0.9, beta2: 0.95, eps: 1e-12, weight_decay: 0, grad_clip_norm: 0 };

/** The modules LoraConfig's `train_attn` and `train_mlp` switch on (Tinker trains them as groups). */
export const TINKER_ATTENTION_MODULES = ['q_proj', 'k_proj', 'v_proj', 'o_proj'] as const;
export const TINKER_MLP_MODULES = ['gate_proj', 'up_proj', 'down_proj'] as const;

export interface LoraConfigWire {
  readonly rank: number;
  readonly seed?: number | null;
  readonly train_unembed?: boolean;
  readonly train_mlp?: boolean;
  readonly train_attn?: boolean;
}

export interface SamplingParamsWire {
  readonly max_tokens?: number | null;
  readonly seed?: number | null;
  /** A stop string, several, or stop token ids. */
  readonly stop?: string | readonly string[] | readonly number[] | null;
  readonly temperature?: number;
  /** -1 = no limit. */
  readonly top_k?: number;
  readonly top_p?: number;
}

export interface SampleRequest {
  readonly num_samples?: number;
  readonly prompt: ModelInput;
  readonly sampling_params: SamplingParamsWire;
  readonly base_model?: string | null;
  readonly model_path?: string | null;
  readonly sampling_session_id?: string | null;
  readonly seq_id?: number | null;
  readonly prompt_logprobs?: boolean | null;
  readonly topk_prompt_logprobs?: number;
}

export type StopReason = 'stop' | 'length';

export interface SampledSequence {
  readonly stop_reason: StopReason;
  readonly tokens: readonly number[];
  /** Logprob of each sampled token (temperature 1), always sent by Troupe's server. */
  readonly logprobs?: readonly number[];
}

export interface SampleResponse {
  readonly sequences: readonly SampledSequence[];
  /** One per prompt token; null (NaN on the wire) for the first, which has no context. */
  readonly prompt_logprobs?: ReadonlyArray<number | null>;
  /** Per prompt position, the k most likely next tokens (null for the first position). */
  readonly topk_prompt_logprobs?: ReadonlyArray<ReadonlyArray<readonly [number, number]> | null>;
}

/** Who is to blame for a failed future: `user` errors are the request's fault (not retried). */
export type ErrorCategory = 'user' | 'server' | 'unknown';

/** A future's failure, as `retrieve_future` answers it. */
export interface RequestFailed {
  readonly error: string;
  readonly category: ErrorCategory;
}

export interface TryAgain {
  readonly type: 'try_again';
  readonly request_id: string;
  readonly queue_state: 'active' | 'paused_capacity' | 'paused_rate_limit';
}

export interface UntypedFuture {
  readonly request_id: string;
  readonly model_id?: string;
}

/** What the client config route answers: the SDK's feature flags. */
export interface ClientConfig {
  /** The SDK's default transport package (pyqwest) is not needed: plain httpx. */
  readonly use_pyqwest_transport: false;
  /** forward_backward bodies stay uncompressed (Node 20 has no zstd). */
  readonly proto_compress_fwdbwd: false;
  readonly parallel_fwdbwd_chunks: boolean;
  readonly fwdbwd_max_chunk_len: number;
  readonly create_model_via_load_weights: false;
  readonly pjwt_auth_enabled: false;
}

export const PROTOBUF_CONTENT_TYPE = 'application/x-protobuf';

/** tinker://<model_id>/weights/<name> (training state) and .../sampler_weights/<name> (for sampling). */
export interface TinkerPath {
  readonly modelId: string;
  readonly kind: 'weights' | 'sampler_weights';
  readonly name: string;
}
