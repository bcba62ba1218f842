/**
 * The one error catalogue of Mockingbird. Every error a client can see has a stable code here, with
 * its HTTP status and default message; the Fastify error handler (server.ts) turns an AppError into
 * the documented body `{ "error": { "code", "message", "details" } }`.
 */

export const ERRORS = {
  validation_error: { status: 400, message: 'The request is not valid.' },
  missing_authentication: { status: 401, message: 'An API key is required in the Authorization header.' },
  unauthorized_api_key: { status: 401, message: 'The API key is not valid.' },
  contract_unauthorized: {
    status: 401,
    message: "The request has no credential the endpoint's OpenAPI document asks for.",
  },
  forbidden: { status: 403, message: 'This API key may not access this resource.' },
  plan_limit: { status: 403, message: "The endpoint's plan does not allow this." },
  not_found: { status: 404, message: 'Not found.' },
  method_not_allowed: { status: 405, message: 'This method is not supported here.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  conflict: { status: 409, message: 'The resource already exists.' },
  payload_too_large: { status: 413, message: 'The request body is larger than the limit.' },
  uri_too_long: { status: 414, message: 'A path segment is longer than the limit.' },
  header_too_large: { status: 431, message: 'The request headers are larger than the limit.' },
  unsupported_media_type: {
    status: 415,
    message: "The request's Content-Type is not one the endpoint's OpenAPI document takes.",
  },
  qr_unreadable: { status: 422, message: 'No readable QR code was found in the image.' },
  contract_violation: {
    status: 422,
    message: "The request breaks the endpoint's OpenAPI document.",
  },
  upgrade_required: { status: 426, message: 'This route takes a WebSocket connection.' },
  rate_limited: { status: 429, message: 'Too many requests; retry later.' },
  quota_exceeded: { status: 429, message: "The endpoint's daily request quota is used up." },
  internal_error: { status: 500, message: 'An internal error occurred.' },
  bad_gateway: { status: 502, message: 'The upstream server could not be reached.' },
  target_refused: { status: 502, message: 'The upstream address is not allowed.' },
  store_unavailable: { status: 503, message: 'The database is busy or unreachable; retry shortly.' },
  qr_busy: { status: 503, message: 'QR decoding is busy; retry in a few seconds.' },
  shutting_down: { status: 503, message: 'The server is shutting down; retry on another instance.' },
  gateway_timeout: { status: 504, message: 'The upstream server did not answer in time.' },
  loop_detected: {
    status: 508,
    message: 'The request came back to this server: the proxy target leads here.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** One finding of a validation: a JSON pointer into the input, what is wrong, and what was received. */
export interface ErrorDetail {
  path: string;
  message: string;
  received?: string;
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

/** An error meant for the client: thrown anywhere, written by the one error handler. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message ?? ERRORS[code].message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.details = options.details;
    this.headers = options.headers;
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details && this.details.length > 0) error.details = this.details;
    return { error };
  }
}

/** The body for a code without throwing, for places that write a reply directly. */
export function errorBody(code: ErrorCode, message?: string, details?: ErrorDetail[]): ErrorBody {
  return new AppError(code, message, details ? { details } : {}).toBody();
}
