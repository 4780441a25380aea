/**
 * An HTTP error in the OpenAI wire format. Clients (the official SDKs, vLLM's tests, curl
 * users) read `error.message`, `error.type`, `error.param` and `error.code`, so every refusal
 * the server makes travels as one of these with a 4xx/5xx status:
 *
 *   { "error": { "message": "n must be ...", "type": "invalid_request_error", "param": "n", "code": null } }
 */

export type ApiErrorType = 'invalid_request_error' | 'not_found_error' | 'server_error';

export class ApiError extends Error {
  readonly status: number;
  readonly type: ApiErrorType;
  readonly param: string | null;
  readonly code: string | null;
  /** Headers the refusal carries (a 405's Allow). */
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, options: { type?: ApiErrorType; param?: string; code?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.type = options.type ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
    this.param = options.param ?? null;
    this.code = options.code ?? null;
    this.headers = options.headers ?? {};
  }

  toBody(): { error: { message: string; type: ApiErrorType; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** A 400 about one request field. */
export function badParam(param: string, message: string, code = 'invalid_value'): ApiError {
  return new ApiError(400, `${param}: ${message}`, { param, code });
}
