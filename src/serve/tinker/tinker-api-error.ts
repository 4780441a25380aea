/**
 * A refusal of the Tinker server. At submit time it is an HTTP error (4xx) whose JSON body
 * carries `error`, `category` and FastAPI's `detail`; once an op is queued, a failure is the
 * future's result instead: a 200 `{error, category}` from retrieve_future, which the SDK
 * raises as RequestFailedError. `user` errors are the request's fault and are not retried.
 */
import type { ErrorCategory } from '../../tinker/types.js';

export class TinkerApiError extends Error {
  readonly status: number;
  readonly category: ErrorCategory;

  constructor(status: number, message: string, category: ErrorCategory = status >= 500 ? 'server' : 'user') {
    super(message);
    this.name = 'TinkerApiError';
    this.status = status;
    this.category = category;
  }

  toBody(): { error: string; category: ErrorCategory; detail: string } {
    return { error: this.message, category: this.category, detail: this.message };
  }
}

/** A 400 about one request field. */
export function badField(field: string, message: string): TinkerApiError {
  return new TinkerApiError(400, `${field}: ${message}`);
}
