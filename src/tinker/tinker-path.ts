/**
 * `tinker://` paths name saved weights: `tinker://<model_id>/weights/<name>` (training state,
 * for load_weights) and `tinker://<model_id>/sampler_weights/<name>` (for sampling clients).
 */
import { TroupeError } from '../util/errors.js';
import type { TinkerPath } from './types.js';

export function formatTinkerPath(path: TinkerPath): string {
  return `tinker://${path.modelId}/${path.kind}/${path.name}`;
}

export function parseTinkerPath(text: string): TinkerPath {
  const match = /^tinker:\/\/(.+)\/(weights|sampler_weights)\/([^/]+)$/.exec(text);
  if (!match) {
    throw new TroupeError('input', `${JSON.stringify(text)} is not a tinker path; expected tinker://<model_id>/weights/<name> or tinker://<model_id>/sampler_weights/<name> as save_weights / save_weights_for_sampler returned it`);
  }
  return { modelId: match[1]!, kind: match[2] as TinkerPath['kind'], name: match[3]! };
}
