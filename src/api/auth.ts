/**
 * API authentication (SPEC §4): the key in `Authorization`, raw or as `Bearer <key>`. Missing: 401
 * missing_authentication; unknown: 401 unauthorized_api_key. An admin key may do everything; a key
 * scoped to one endpoint gets 403 forbidden anywhere else.
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
  const key = presentedKey(request, allowQueryToken);
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
