/**
 * CORS, one helper configured per use: the echo and the TOTP API are open to any origin; an endpoint's
 * `cors.origins` setting names the origins its rule answers are shared with. A policy gives the
 * headers of an ordinary answer and of a preflight (OPTIONS with Access-Control-Request-Method).
 */

type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface CorsPolicy {
  /** `'*'`: any origin; otherwise the origins allowed (an exact `scheme://host[:port]` each, or `*`). */
  origins: '*' | readonly string[];
  /** Methods advertised to a preflight. */
  methods: readonly string[];
  /** Also advertise a requested method outside `methods` (for a service that answers every method). */
  anyMethod?: boolean;
  /** Advertised when a preflight asks for no header; by default the requested headers are echoed. */
  defaultAllowHeaders?: string;
  /** Response headers a browser page may read. */
  exposeHeaders?: readonly string[];
  /** Seconds a browser may cache a preflight answer. */
  maxAge: number;
  /** A preflight answer also carries `Allow` with the methods. */
  allowHeader?: boolean;
}

/** True for a CORS preflight: OPTIONS carrying Access-Control-Request-Method. */
export function isPreflight(method: string, headers: RequestHeaders): boolean {
  return method === 'OPTIONS' && headers['access-control-request-method'] !== undefined;
}

/** An HTTP method token (RFC 9110 §5.6.2). */
const METHOD_TOKEN = /^[!#$%&'*+.^`|~\w-]{1,32}$/;

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The `Access-Control-Allow-Origin` an answer carries, or undefined when the request's origin is not
 * allowed. An origin list answers with the request's own origin (and `Vary: Origin`, added by
 * `corsHeaders`), as a browser accepts one origin only.
 */
function allowedOrigin(policy: CorsPolicy, origin: string | undefined): string | undefined {
  if (policy.origins === '*') return '*';
  if (policy.origins.includes('*')) return '*';
  if (origin !== undefined && policy.origins.includes(origin)) return origin;
  return undefined;
}

/** Headers of an ordinary answer under `policy`; empty when the origin is not allowed. */
export function corsHeaders(policy: CorsPolicy, requestHeaders: RequestHeaders = {}): Record<string, string> {
  const origin = allowedOrigin(policy, first(requestHeaders['origin']));
  if (origin === undefined) return {};
  const h: Record<string, string> = { 'access-control-allow-origin': origin };
  if (origin !== '*') h['vary'] = 'Origin';
  if (policy.exposeHeaders && policy.exposeHeaders.length > 0)
    h['access-control-expose-headers'] = policy.exposeHeaders.join(', ');
  return h;
}

/** Headers of a 204 preflight answer under `policy`; empty when the origin is not allowed. */
export function preflightHeaders(policy: CorsPolicy, requestHeaders: RequestHeaders): Record<string, string> {
  const h = corsHeaders(policy, requestHeaders);
  if (h['access-control-allow-origin'] === undefined) return h;
  let methods = policy.methods.join(', ');
  const method = first(requestHeaders['access-control-request-method']);
  if (
    policy.anyMethod === true &&
    method !== undefined &&
    METHOD_TOKEN.test(method) &&
    !policy.methods.includes(method.toUpperCase())
  )
    methods += `, ${method}`;
  if (policy.allowHeader === true) h['allow'] = methods;
  h['access-control-allow-methods'] = methods;
  const requested = requestHeaders['access-control-request-headers'];
  const allowHeaders =
    requested !== undefined
      ? Array.isArray(requested)
        ? requested.join(', ')
        : requested
      : policy.defaultAllowHeaders;
  if (allowHeaders !== undefined) h['access-control-allow-headers'] = allowHeaders;
  h['access-control-max-age'] = String(policy.maxAge);
  return h;
}

/** Open to any origin: the echo, the TOTP API and the service's own error answers. */
export const OPEN_ORIGIN = { 'access-control-allow-origin': '*' } as const;
