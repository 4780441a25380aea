/**
 * The JSON bodies of the Tinker routes that name sessions, models and checkpoints, as zod
 * schemas (request-fields.ts has the blocks, check-*.ts the bodies that carry training and
 * sampling parameters). `parseTinker(schema, body)` gives the typed body or a 400 naming the
 * field.
 *
 *   const { model_id, seq_id } = parseTinker(trainingOpBody, body);
 */
import { z } from 'zod';
import { flag, integer, optional, seqId, text, withDefault } from './request-fields.js';

/** Highest model_seq_id / sampling_session_seq_id a client may choose. */
const MAX_CLIENT_SEQ = 1_000_000_000;

/** session_heartbeat. */
export const sessionBody = z.looseObject({ session_id: text() });

/** get_info, unload_model. */
export const modelBody = z.looseObject({ model_id: text() });

/** create_model (its lora_config: check-training-requests.ts); model_seq_id defaults to the session's model count. */
export const createModelBody = z.looseObject({
  session_id: text(),
  base_model: text(),
  model_seq_id: optional(integer({ min: 0, max: MAX_CLIENT_SEQ })),
});

/** optim_step, save_weights, save_weights_for_sampler, load_weights: the model and the op's place in its order. */
export const trainingOpBody = z.looseObject({ model_id: text(), seq_id: seqId });

/** save_weights' `overwrite`. */
export const overwriteBody = z.looseObject({ overwrite: withDefault(flag, false) });

/** load_weights: a tinker:// path and whether the Adam moments come too. */
export const loadWeightsBody = z.looseObject({ path: text(), optimizer: withDefault(flag, false) });

/** create_sampling_session (its target: samplerTargetBody); the seq id defaults to the session's sampler count. */
export const samplingSessionBody = z.looseObject({
  session_id: text(),
  sampling_session_seq_id: optional(integer({ min: 0, max: MAX_CLIENT_SEQ })),
});

/** asample's ids: samplers' seq_ids order nothing, but must be numbers. */
export const asampleIdsBody = z.looseObject({
  seq_id: optional(integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
  sampling_session_id: optional(text()),
});

/** What a sampler samples from: a tinker:// model_path or a bare base_model. */
export const samplerTargetBody = z.looseObject({ model_path: optional(text()), base_model: optional(text()) });

/** weights_info. */
export const weightsInfoBody = z.looseObject({ tinker_path: text() });

/** retrieve_future. */
export const retrieveFutureBody = z.looseObject({ request_id: text(200) });
