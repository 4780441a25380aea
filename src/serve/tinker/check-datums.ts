/**
 * Checks a forward_backward batch against the model and the loss function BEFORE any
 * gradient is computed, so a bad batch fails as a whole (a user error naming the datum and
 * field) and leaves no half-accumulated gradient behind.
 */
import { LOSS_CONFIG_KEYS, LOSS_INPUTS, type LossInputs } from '../../tinker/loss-functions.js';
import { LOSS_FNS, type Datum, type ForwardBackwardRequest, type LossFnName, type TensorData } from '../../tinker/types.js';
import { LIMIT_FLAGS } from './limits.js';
import { TinkerApiError } from './tinker-api-error.js';

/** One datum ready for the model: the tokens it reads, its targets and the loss inputs. */
export interface CheckedDatum {
  readonly tokens: number[];
  readonly targets: number[];
  readonly inputs: LossInputs;
}

function fail(message: string): TinkerApiError {
  return new TinkerApiError(400, message);
}

function tensor(datum: Datum, index: number, name: string, dtype: TensorData['dtype'], length: number): ArrayLike<number> {
  const t = datum.loss_fn_inputs[name]!;
  if (t.dtype !== dtype) throw fail(`datum ${index}: loss_fn_inputs.${name} has dtype ${t.dtype} but must be ${dtype}`);
  if (t.data.length !== length) {
    throw fail(`datum ${index}: loss_fn_inputs.${name} has ${t.data.length} values but model_input has ${length} tokens; give one value per input token`);
  }
  // NaN or Inf in a loss input would make every gradient NaN and destroy the adapter at optim_step.
  for (let i = 0; i < t.data.length; i++) {
    if (!Number.isFinite(t.data[i]!)) throw fail(`datum ${index}: loss_fn_inputs.${name}[${i}] is ${t.data[i]}; every value must be a finite number`);
  }
  return t.data;
}

export function checkLossFn(request: ForwardBackwardRequest): LossFnName {
  const name = request.loss_fn as LossFnName;
  if (!LOSS_FNS.includes(name)) throw fail(`loss_fn ${JSON.stringify(request.loss_fn)} is not supported; use one of ${LOSS_FNS.join(', ')}`);
  const unknown = Object.keys(request.loss_fn_config).filter((k) => !LOSS_CONFIG_KEYS[name].includes(k));
  if (unknown.length) {
    const allowed = LOSS_CONFIG_KEYS[name];
    throw fail(`loss_fn_config key(s) ${unknown.join(', ')} are not used by ${name}; ${allowed.length ? `allowed: ${allowed.join(', ')}` : 'it takes none'}`);
  }
  for (const [key, value] of Object.entries(request.loss_fn_config)) {
    if (!Number.isFinite(value)) throw fail(`loss_fn_config.${key} is ${value}; it must be a finite number`);
  }
  // The clip range must hold the ratio 1 (a sample of the current policy), else every token is clipped.
  const { clip_low_threshold: low, clip_high_threshold: high } = request.loss_fn_config;
  if (low !== undefined && !(low >= 0 && low <= 1)) throw fail(`loss_fn_config.clip_low_threshold must be from 0 to 1 (the ratio 1 stays inside the clip range), got ${low}`);
  if (high !== undefined && !(high >= 1)) throw fail(`loss_fn_config.clip_high_threshold must be >= 1 (the ratio 1 stays inside the clip range), got ${high}`);
  return name;
}

/** How long a datum and a whole request may be (the server's limits), besides the model's context. */
export interface DatumLimits {
  readonly maxDatumTokens: number;
  readonly maxBatchTokens: number;
}

export function checkDatums(request: ForwardBackwardRequest, lossFn: LossFnName, model: { vocab: number; context: number }, limits: DatumLimits): CheckedDatum[] {
  if (request.data.length === 0) throw fail('data is empty; send at least one datum');
  const lengths = request.data.map((d) => d.model_input.chunks.reduce((n, c) => n + c.tokens.length, 0));
  const total = lengths.reduce((a, b) => a + b, 0);
  if (total > limits.maxBatchTokens) throw fail(`the request has ${total} model_input tokens in all; this server takes at most ${limits.maxBatchTokens} per forward_backward (${LIMIT_FLAGS.maxBatchTokens}); split the batch into chunks`);
  return request.data.map((datum, i) => {
    const cap = Math.min(model.context, limits.maxDatumTokens);
    if (lengths[i]! > cap) {
      throw fail(`datum ${i}: model_input has ${lengths[i]} tokens but ${model.context <= limits.maxDatumTokens ? `the model's context is ${model.context}` : `this server takes at most ${limits.maxDatumTokens} per datum (${LIMIT_FLAGS.maxDatumTokens})`}`);
    }
    const tokens = datum.model_input.chunks.flatMap((c) => Array.from(c.tokens));
    if (tokens.length === 0) throw fail(`datum ${i}: model_input has no tokens`);
    const badInput = tokens.find((t) => !Number.isInteger(t) || t < 0 || t >= model.vocab);
    if (badInput !== undefined) throw fail(`datum ${i}: token id ${badInput} in model_input is outside the vocabulary 0..${model.vocab - 1}`);
    const needed = ['target_tokens', ...LOSS_INPUTS[lossFn]];
    const missing = needed.filter((k) => datum.loss_fn_inputs[k] === undefined);
    if (missing.length) throw fail(`datum ${i}: loss_fn_inputs lacks ${missing.join(', ')}, which ${lossFn} needs (it takes ${needed.join(', ')})`);
    const targets = Array.from(tensor(datum, i, 'target_tokens', 'int64', tokens.length));
    const badTarget = targets.find((t) => !Number.isInteger(t) || t < 0 || t >= model.vocab);
    if (badTarget !== undefined) throw fail(`datum ${i}: target token id ${badTarget} is outside the vocabulary 0..${model.vocab - 1}`);
    const has = (name: string) => datum.loss_fn_inputs[name] !== undefined;
    const inputs: LossInputs = {
      ...(has('weights') ? { weights_T: tensor(datum, i, 'weights', 'float32', tokens.length) } : {}),
      ...(has('logprobs') ? { samplingLogprobs_T: tensor(datum, i, 'logprobs', 'float32', tokens.length) } : {}),
      ...(has('advantages') ? { advantages_T: tensor(datum, i, 'advantages', 'float32', tokens.length) } : {}),
    };
    return { tokens, targets, inputs };
  });
}
