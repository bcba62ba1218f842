/**
 * The echo document: what the client sent, in the field order of SPEC §2. Pure: it reads the
 * CapturedRequest and nothing else.
 */
import type { CapturedRequest } from '../http/index.js';

/** Every method the echo answers, as advertised to CORS preflights. */
export const ECHO_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/** Seconds a browser may cache a preflight answer. */
export const PREFLIGHT_MAX_AGE = 86400;

export interface EchoDocument {
  method: string;
  protocol: 'http' | 'https';
  host: string;
  path: string;
  ip: string;
  headers: Readonly<Record<string, string>>;
  parsedQueryParams: Readonly<Record<string, string | string[]>>;
  parsedBody?: unknown;
  rawBody?: string;
  warnings?: string[];
}

/** The echo document for `c`: `parsedBody`, `rawBody` and `warnings` appear only when they apply. */
export function echoDocument(c: CapturedRequest): EchoDocument {
  const doc: EchoDocument = {
    method: c.method,
    protocol: c.protocol,
    host: c.host,
    path: c.path,
    ip: c.ip,
    headers: c.headers,
    parsedQueryParams: c.query,
  };
  if (c.body.value !== undefined) doc.parsedBody = c.body.value;
  if (c.body.showRaw) doc.rawBody = c.rawBody.toString('utf8');
  if (c.warnings.length > 0) doc.warnings = [...c.warnings];
  return doc;
}

/** True for a CORS preflight: OPTIONS carrying Access-Control-Request-Method. */
export function isPreflight(
  method: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): boolean {
  return method === 'OPTIONS' && headers['access-control-request-method'] !== undefined;
}

/** An HTTP method token (RFC 9110 §5.6.2). */
const METHOD_TOKEN = /^[!#$%&'*+.^`|~\w-]{1,32}$/;

/**
 * Headers of a 204 preflight answer; requested headers are echoed back. The echo answers every
 * method, so a requested method outside the usual list (PROPFIND …) is added to the allowed ones.
 */
export function preflightHeaders(
  requestHeaders: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> {
  let methods = ECHO_METHODS;
  const method = requestHeaders['access-control-request-method'];
  if (
    typeof method === 'string' &&
    METHOD_TOKEN.test(method) &&
    !ECHO_METHODS.split(', ').includes(method.toUpperCase())
  )
    methods += `, ${method}`;
  const h: Record<string, string> = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': methods,
    'access-control-max-age': String(PREFLIGHT_MAX_AGE),
  };
  const requested = requestHeaders['access-control-request-headers'];
  if (requested !== undefined)
    h['access-control-allow-headers'] = Array.isArray(requested) ? requested.join(', ') : requested;
  return h;
}
