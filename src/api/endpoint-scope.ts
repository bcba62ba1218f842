/**
 * The scope of every route under `/api/v2/endpoints/:ep`: one preHandler finds the endpoint the path
 * names, once per request, and hands it to the route as `request.endpoint`. A key scoped to another
 * endpoint gets 403 before an unknown endpoint gets 404, so that a scoped key cannot probe which names
 * exist. A route asks for more in `config.endpoint`: an admin key (403 before the endpoint is looked
 * up), a writable endpoint (the built-in `echo` refused, 403), or the history writer's pending batch
 * written first (so that a history route reads every entry the caller has been answered for).
 * The hook runs where the routes' own code used to look the endpoint up: after the body and the
 * parameters are validated, so a bad request is a 400 before it is a 403 or a 404.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiDeps } from './deps.js';
import { isBuiltIn } from '../endpoint/index.js';
import { AppError } from '../errors.js';
import type { EndpointRecord } from '../store/index.js';
import { requireAdmin, requireEndpointAccess } from './auth.js';

/** What a route of the scope needs besides a key allowed on the endpoint. */
export interface EndpointAccess {
  /** An admin key: 403 for any other, before the endpoint is looked up. */
  admin?: true;
  /** The route changes the endpoint: 403 for the built-in `echo`, which always echoes. */
  writable?: true;
  /** The history writer's pending batch is written before the route runs. */
  history?: true;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    endpoint?: EndpointAccess;
  }
  interface FastifyRequest {
    /** The endpoint of a route under /endpoints/:ep (set by the endpoint scope's preHandler). */
    endpoint: EndpointRecord;
  }
}

/** Where the scope is mounted, relative to /api/v2. */
export const ENDPOINT_PREFIX = '/endpoints/:ep';

/** A group of routes written relative to ENDPOINT_PREFIX. */
export type EndpointRoutes = (scope: FastifyInstance, ctx: ApiDeps) => Promise<void>;

/** Refuses changes to the built-in `echo` endpoint, which always echoes. */
export function refuseBuiltIn(ep: EndpointRecord): void {
  if (isBuiltIn(ep))
    throw new AppError(
      'forbidden',
      `The built-in "${ep.name}" endpoint always echoes; it cannot be changed.`,
    );
}

/** The endpoint of a request under ENDPOINT_PREFIX, as the route's `config.endpoint` asks. */
async function endpointOf(
  ctx: Pick<ApiDeps, 'store' | 'history'>,
  request: FastifyRequest,
): Promise<EndpointRecord> {
  const access = request.routeOptions.config.endpoint ?? {};
  if (access.admin) requireAdmin(request);
  const { ep: name } = request.params as { ep: string };
  requireEndpointAccess(request, name);
  const rec = await ctx.store.getEndpoint(name);
  if (!rec) throw new AppError('not_found', `Endpoint "${name}" does not exist.`);
  if (access.history) await ctx.history.flush();
  if (access.writable) refuseBuiltIn(rec);
  return rec;
}

/**
 * The plugin to register with `{ prefix: ENDPOINT_PREFIX }`: the endpoint's preHandler, then each
 * group of routes in its own child scope (their content-type parsers and hooks stay their own).
 */
export function endpointScope(ctx: ApiDeps, groups: EndpointRoutes[]) {
  return async (scope: FastifyInstance): Promise<void> => {
    scope.decorateRequest('endpoint', null as unknown as EndpointRecord);
    scope.addHook('preHandler', async (request) => {
      request.endpoint = await endpointOf(ctx, request);
    });
    for (const routes of groups) await scope.register(async (s) => routes(s, ctx));
  };
}
