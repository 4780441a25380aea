/**
 * A forward_backward batch as a zod schema, checked against the model and the loss function
 * BEFORE any gradient is computed, so a bad batch fails as a whole (a user error naming the
 * datum and field) and leaves no half-accumulated gradient behind. The body arrives as
 * protobuf (tinker-proto.ts gives its types); what the schema adds is what the wire format
 * cannot say: a known loss function and its config keys, and per datum the lengths, token
 * ranges, dtypes and finite values the model and the loss need.
 *
 *   const { lossFn, datums } = checkForwardBackward(request, { vocab, context }, limits);
 */
import { z } from 'zod';
import { LOSS_CONFIG_KEYS, LOSS_INPUTS, type LossInputs } from '../../tinker/loss-functions.js';
import { LOSS_FNS, type Datum, type ForwardBackwardRequest, type LossFnName, type TensorData } from '../../tinker/types.js';
import { LIMIT_FLAGS } from './limits.js';
import { describe, finite, parseTinker } from './request-fields.js';

/** One datum ready for the model: the tokens it reads, its targets and the loss inputs. */
export interface CheckedDatum {
  readonly tokens: number[];
  readonly targets: number[];
  readonly inputs: LossInputs;
}

/** How long a datum and a whole request may be (the server's limits), besides the model's context. */
export interface DatumLimits {
  readonly maxDatumTokens: number;
  readonly maxBatchTokens: number;
}

/** What the checks need of the model. */
export interface DatumModelFacts {
  readonly vocab: number;
  readonly context: number;
}

type Refuse = (message: string) => void;

/** The loss function and its config: a known name, only its keys, finite values, a clip range holding 1. */
const lossFnSchema = z
  .looseObject({
    loss_fn: z.string(),
    loss_fn_config: z.record(z.string(), finite()),
  })
  .superRefine(({ loss_fn: given, loss_fn_config: config }, ctx) => {
    const refuse: Refuse = (message) => ctx.addIssue({ code: 'custom', message });
    const name = given as LossFnName;
    if (!LOSS_FNS.includes(name)) return refuse(`loss_fn ${describe(given)} is not supported; use one of ${LOSS_FNS.join(', ')}`);
    const allowed = LOSS_CONFIG_KEYS[name];
    const unknown = Object.keys(config).filter((k) => !allowed.includes(k));
    if (unknown.length) return refuse(`loss_fn_config key(s) ${unknown.join(', ')} are not used by ${name}; ${allowed.length ? `allowed: ${allowed.join(', ')}` : 'it takes none'}`);
    // The clip range must hold the ratio 1 (a sample of the current policy), else every token is clipped.
    const { clip_low_threshold: low, clip_high_threshold: high } = config;
    if (low !== undefined && !(low >= 0 && low <= 1)) refuse(`loss_fn_config.clip_low_threshold must be from 0 to 1 (the ratio 1 stays inside the clip range), got ${low}`);
    else if (high !== undefined && !(high >= 1)) refuse(`loss_fn_config.clip_high_threshold must be >= 1 (the ratio 1 stays inside the clip range), got ${high}`);
  });

export function checkLossFn(request: ForwardBackwardRequest): LossFnName {
  return parseTinker(lossFnSchema, request).loss_fn as LossFnName;
}

/** `name` of the datum's loss inputs, of `dtype`, one finite value per input token; else refused. */
function tensor(datum: Datum, name: string, dtype: TensorData['dtype'], length: number, refuse: Refuse): ArrayLike<number> | undefined {
  const t = datum.loss_fn_inputs[name]!;
  if (t.dtype !== dtype) return void refuse(`loss_fn_inputs.${name} has dtype ${t.dtype} but must be ${dtype}`);
  if (t.data.length !== length) return void refuse(`loss_fn_inputs.${name} has ${t.data.length} values but model_input has ${length} tokens; give one value per input token`);
  // NaN or Inf in a loss input would make every gradient NaN and destroy the adapter at optim_step.
  const bad = Array.prototype.findIndex.call(t.data, (x: number) => !Number.isFinite(x));
  if (bad >= 0) return void refuse(`loss_fn_inputs.${name}[${bad}] is ${t.data[bad]}; every value must be a finite number`);
  return t.data;
}

/** The first id outside 0..vocab-1 (or not an integer), if any. */
function outsideVocab(ids: readonly number[], vocab: number): number | undefined {
  return ids.find((t) => !Number.isInteger(t) || t < 0 || t >= vocab);
}

/** One datum checked (refusing with its index) and read into a CheckedDatum. */
function checkDatum(datum: Datum, length: number, lossFn: LossFnName, model: DatumModelFacts, cap: string | undefined, refuse: Refuse): CheckedDatum | undefined {
  if (cap !== undefined) return void refuse(`model_input has ${length} tokens but ${cap}`);
  const tokens = datum.model_input.chunks.flatMap((c) => Array.from(c.tokens));
  if (tokens.length === 0) return void refuse('model_input has no tokens');
  const badInput = outsideVocab(tokens, model.vocab);
  if (badInput !== undefined) return void refuse(`token id ${badInput} in model_input is outside the vocabulary 0..${model.vocab - 1}`);
  const needed = ['target_tokens', ...LOSS_INPUTS[lossFn]];
  const missing = needed.filter((k) => datum.loss_fn_inputs[k] === undefined);
  if (missing.length) return void refuse(`loss_fn_inputs lacks ${missing.join(', ')}, which ${lossFn} needs (it takes ${needed.join(', ')})`);
  const targetData = tensor(datum, 'target_tokens', 'int64', tokens.length, refuse);
  if (targetData === undefined) return undefined;
  const targets = Array.from(targetData);
  const badTarget = outsideVocab(targets, model.vocab);
  if (badTarget !== undefined) return void refuse(`target token id ${badTarget} is outside the vocabulary 0..${model.vocab - 1}`);
  const inputs: { -readonly [K in keyof LossInputs]: LossInputs[K] } = {};
  for (const [name, key] of [['weights', 'weights_T'], ['logprobs', 'samplingLogprobs_T'], ['advantages', 'advantages_T']] as const) {
    if (datum.loss_fn_inputs[name] === undefined) continue;
    const data = tensor(datum, name, 'float32', tokens.length, refuse);
    if (data === undefined) return undefined;
    inputs[key] = data;
  }
  return { tokens, targets, inputs };
}

/** The batch of one loss function against the model and the server's limits, read into CheckedDatums. */
function datumsSchema(lossFn: LossFnName, model: DatumModelFacts, limits: DatumLimits) {
  return z
    .looseObject({ data: z.array(z.custom<Datum>()) })
    .transform(({ data }, ctx): CheckedDatum[] => {
      if (data.length === 0) {
        ctx.addIssue({ code: 'custom', message: 'data is empty; send at least one datum' });
        return z.NEVER;
      }
      const lengths = data.map((d) => d.model_input.chunks.reduce((n, c) => n + c.tokens.length, 0));
      const total = lengths.reduce((a, b) => a + b, 0);
      if (total > limits.maxBatchTokens) {
        ctx.addIssue({ code: 'custom', message: `the request has ${total} model_input tokens in all; this server takes at most ${limits.maxBatchTokens} per forward_backward (${LIMIT_FLAGS.maxBatchTokens}); split the batch into chunks` });
        return z.NEVER;
      }
      const capText = model.context <= limits.maxDatumTokens ? `the model's context is ${model.context}` : `this server takes at most ${limits.maxDatumTokens} per datum (${LIMIT_FLAGS.maxDatumTokens})`;
      const checked: CheckedDatum[] = [];
      for (const [i, datum] of data.entries()) {
        const refuse: Refuse = (message) => ctx.addIssue({ code: 'custom', message: `datum ${i}: ${message}` });
        const cap = lengths[i]! > Math.min(model.context, limits.maxDatumTokens) ? capText : undefined;
        const one = checkDatum(datum, lengths[i]!, lossFn, model, cap, refuse);
        if (one === undefined) return z.NEVER;
        checked.push(one);
      }
      return checked;
    });
}

export function checkDatums(request: ForwardBackwardRequest, lossFn: LossFnName, model: DatumModelFacts, limits: DatumLimits): CheckedDatum[] {
  return parseTinker(datumsSchema(lossFn, model, limits), request);
}
