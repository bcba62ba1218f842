/**
 * API authentication (SPEC §4): the key in `Authorization`, raw or as `Bearer <key>`. Missing: 401
 * missing_authentication; unknown: 401 unauthorized_api_key. An admin key may do everything; a key
 * scoped to one endpoint gets 403 forbidden anywhere else.
 *
 * The dashboard's session (session.ts) is the same key in an HttpOnly, SameSite=Strict cookie scoped to
 * `/api`, so that no script of the dashboard's origin can read it. Taken only where no header is sent,
 * and only from the dashboard's own origin: a request that a browser says comes from elsewhere (an
 * `Origin` of another host or `null`, a `Sec-Fetch-Site` other than `same-origin`) is 403, and a
 * request that changes something must name its origin. A page of another origin, a sandboxed mock
 * answer's opaque origin included, cannot act with the cookie even where the browser would send it.
 */
import type { FastifyRequest } from 'fastify';
import type { Store } from '../store/index.js';
import { AppError } from '../errors.js';
import { findKey } from './keys.js';

export interface Principal {
  keyId: string;
  /** Null for an admin key. */
  endpoint: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** The dashboard's session cookie: the key, HttpOnly, SameSite=Strict, Path=/api (session.ts). */
export const SESSION_COOKIE = 'mb_session';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** The session cookie's value, if the request carries one. */
export function sessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const v = part.slice(eq + 1).trim();
      return v === '' ? undefined : v;
    }
  }
  return undefined;
}

/**
 * Why a request may not use the session cookie, or undefined when it comes from the dashboard's own
 * origin: no `Origin` (a same-origin GET, an EventSource) or one naming this host, no `Sec-Fetch-Site`
 * or `same-origin`; a method that changes something must send `Origin` (browsers always do).
 */
function crossOriginProblem(request: FastifyRequest): string | undefined {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin')
    return `The session cookie is not accepted from a ${String(site)} request.`;
  const origin = request.headers.origin;
  if (origin === undefined)
    return SAFE_METHODS.has(request.method)
      ? undefined
      : 'The session cookie is accepted only with an Origin header naming this host.';
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined; // `null` (an opaque origin) and anything else that is no URL
  }
  if (host === undefined || host !== (request.headers.host ?? '').toLowerCase())
    return `The session cookie is not accepted from the origin ${JSON.stringify(origin)}.`;
  return undefined;
}

/** The presented key: Authorization header (raw or Bearer), else `?access_token=` when allowed. */
export function presentedKey(request: FastifyRequest, allowQueryToken: boolean): string | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.trim() !== '') {
    const v = header.trim();
    return /^bearer\s+/i.test(v) ? v.replace(/^bearer\s+/i, '').trim() : v;
  }
  if (allowQueryToken) {
    const q = request.query as Record<string, unknown> | undefined;
    const t = q?.['access_token'];
    if (typeof t === 'string' && t !== '') return t;
  }
  return undefined;
}

/** Resolves the caller's key or throws the documented 401. */
export async function authenticate(
  store: Store,
  request: FastifyRequest,
  allowQueryToken = false,
): Promise<Principal> {
  let key = presentedKey(request, allowQueryToken);
  if (key === undefined) {
    key = sessionCookie(request);
    if (key !== undefined) {
      const problem = crossOriginProblem(request);
      if (problem !== undefined) throw new AppError('forbidden', problem);
    }
  }
  if (key === undefined) throw new AppError('missing_authentication');
  const rec = await findKey(store, key);
  if (!rec) throw new AppError('unauthorized_api_key');
  const principal = { keyId: rec.id, endpoint: rec.endpoint };
  request.principal = principal;
  return principal;
}

/** Throws 403 unless the caller may act on `endpoint`. */
export function requireEndpointAccess(request: FastifyRequest, endpoint: string): void {
  const p = request.principal;
  if (!p) throw new AppError('missing_authentication');
  if (p.endpoint !== null && p.endpoint !== endpoint)
    throw new AppError('forbidden', `This API key is scoped to endpoint "${p.endpoint}".`);
}

/** Throws 403 unless the caller holds an admin key. */
export function requireAdmin(request: FastifyRequest): void {
  const p = request.principal;
  if (!p) throw new AppError('missing_authentication');
  if (p.endpoint !== null) throw new AppError('forbidden', 'Only an admin API key may do this.');
}
