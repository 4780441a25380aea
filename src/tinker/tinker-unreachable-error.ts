import { TroupeError } from '../util/errors.js';

/**
 * The Tinker service could not be reached (or kept answering 408/429/5xx) through every retry.
 * A `policy` error like any other failed request, as its own class so that the trainer can add
 * how to continue the run (`--resume`) once the service is back.
 */
export class TinkerUnreachableError extends TroupeError {
  readonly baseUrl: string;

  constructor(message: string, baseUrl: string) {
    super('policy', message);
    this.name = 'TinkerUnreachableError';
    this.baseUrl = baseUrl;
  }
}
