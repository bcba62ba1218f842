/**
 * The management API v2 (SPEC §4), mounted under `/api/v2` (routes here are written relative to it).
 * Every route authenticates first; route groups live one per file and are registered here.
 */
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from './deps.js';
import { useTypeBox } from '../schema/index.js';
import { AppError } from '../errors.js';
import { authenticate } from './auth.js';
import { AuthFailures } from './auth-failures.js';
import { openapiApi } from './openapi.js';
import { endpointApi, endpointsApi } from './endpoints.js';
import { ENDPOINT_PREFIX, endpointScope } from './endpoint-scope.js';
import { rulesApi } from './rules.js';
import { blobsApi } from './blobs.js';
import { templatePreviewApi } from './template-preview.js';
import { specsApi } from './specs.js';
import { keysRoutesApi } from './keys-routes.js';
import { historyApi } from './history.js';
import { recordingApi } from './recording.js';
import { harImportApi } from './har-import.js';
import { eventsApi } from './events.js';
import { tunnelApi } from './tunnel.js';
import { stateApi } from './state.js';
import { mtlsApi } from './mtls.js';
import { SESSION_PATH, sessionApi } from './session.js';
import { healthApi } from './health.js';

export { authenticate, requireAdmin, requireEndpointAccess, type Principal } from './auth.js';
export { createKey, ensureAdminKey, findKey, hashKey, listKeys, revokeKey } from './keys.js';
export { historyRecord } from './history-query.js';
export { SseHub } from './sse-hub.js';
export { opsRoutes, type OpsDeps } from './ops.js';
export { listenMetrics, type MetricsListener } from './metrics-listener.js';
export type * from './types.js';
export type { ApiDeps } from './deps.js';

/** Paths answered without a key. */
const PUBLIC_PATHS = new Set(['/api/v2/openapi.json', '/api/v2/docs']);

/** The largest JSON body of an API route that sets no limit of its own. */
export const API_BODY_LIMIT = 1024 * 1024;

export async function apiRoutes(app: FastifyInstance, ctx: ApiDeps): Promise<void> {
  // One validator for every API route: TypeBox (schema/validate.ts).
  useTypeBox(app);
  // API bodies are documents, bounded for what each route takes (not by BODY_LIMIT, which is for
  // endpoint traffic and may be raised far past what a document needs): 1 MiB unless the route says.
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= API_BODY_LIMIT;
  });
  const failures = new AuthFailures(ctx);
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]!;
    if (PUBLIC_PATHS.has(path)) return;
    // Logging out of the dashboard clears its cookie, whatever the cookie holds.
    if (request.method === 'DELETE' && path === `/api/v2${SESSION_PATH}`) return;
    await failures.check(request);
    try {
      // Browsers' EventSource cannot send headers: the events stream also takes ?access_token=.
      await authenticate(ctx.store, request, path.endsWith('/events'));
    } catch (err) {
      if (err instanceof AppError && err.status === 401)
        throw (await failures.failed(request, err.code)) ?? err;
      throw err;
    }
  });
  // First, so that it sees every route registered after it.
  await openapiApi(app);
  await app.register(async (s) => endpointsApi(s, ctx));
  // Routes under /endpoints/:ep find their endpoint in one place (endpoint-scope.ts). The scope is
  // mounted twice only to keep the API document's order (paths and tags) where the key routes have it.
  const scoped = { prefix: ENDPOINT_PREFIX };
  await app.register(
    endpointScope(ctx, [endpointApi, rulesApi, blobsApi, templatePreviewApi, specsApi]),
    scoped,
  );
  await app.register(async (s) => keysRoutesApi(s, ctx));
  await app.register(
    endpointScope(ctx, [historyApi, recordingApi, harImportApi, eventsApi, tunnelApi, stateApi, mtlsApi]),
    scoped,
  );
  await app.register(async (s) => sessionApi(s));
  await app.register(async (s) => healthApi(s, ctx));
}
