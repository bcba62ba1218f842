/**
 * The echo document: what the client sent, in the field order of SPEC §2. Pure: it reads the
 * CapturedRequest and nothing else.
 */
import type { CapturedRequest, CorsPolicy } from '../http/index.js';

/** Every method the echo answers, as advertised to CORS preflights. */
export const ECHO_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/** Seconds a browser may cache a preflight answer. */
export const PREFLIGHT_MAX_AGE = 86400;

/**
 * The echo's CORS: open to any origin; a preflight is told every usual method, plus the one it asks
 * for (the echo answers every method, PROPFIND included), and the headers it asks for.
 */
export const ECHO_CORS: CorsPolicy = {
  origins: '*',
  methods: ECHO_METHODS.split(', '),
  anyMethod: true,
  maxAge: PREFLIGHT_MAX_AGE,
};

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
