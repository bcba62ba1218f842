/**
 * The one way an API route finds the endpoint a request names: a key scoped to another endpoint gets
 * 403 before an unknown endpoint gets 404 (so a scoped key cannot probe which names exist).
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import type { EndpointRecord } from '../store/index.js';
import { requireEndpointAccess } from './auth.js';

/** The endpoint `name`, checked against the request's key; 403 or 404 otherwise. */
export async function loadEndpoint(
  ctx: Pick<AppContext, 'store'>,
  request: FastifyRequest,
  name: string,
): Promise<EndpointRecord> {
  requireEndpointAccess(request, name);
  const rec = await ctx.store.getEndpoint(name);
  if (!rec) throw new AppError('not_found', `Endpoint "${name}" does not exist.`);
  return rec;
}

/**
 * The endpoint `name` for a history route: as `loadEndpoint`, then the history writer's pending batch
 * is written, so that the route reads (or deletes) every entry the caller has already been answered for.
 */
export async function loadEndpointHistory(
  ctx: Pick<AppContext, 'store' | 'history'>,
  request: FastifyRequest,
  name: string,
): Promise<EndpointRecord> {
  const rec = await loadEndpoint(ctx, request, name);
  await ctx.history.flush();
  return rec;
}
