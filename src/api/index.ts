/**
 * The management API v2 (SPEC §4), mounted under `/api/v2` (routes here are written relative to it).
 * Every route authenticates first; route groups live one per file and are registered here.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { useTypeBox } from '../schema/index.js';
import { authenticate } from './auth.js';
import { openapiApi } from './openapi.js';
import { endpointsApi } from './endpoints.js';
import { rulesApi } from './rules.js';
import { blobsApi } from './blobs.js';
import { keysRoutesApi } from './keys-routes.js';
import { historyApi } from './history.js';
import { eventsApi } from './events.js';

export { authenticate, requireAdmin, requireEndpointAccess, type Principal } from './auth.js';
export { createKey, ensureAdminKey, findKey, hashKey } from './keys.js';
export { publishRequestEvents } from './request-events.js';
export { historyRecord } from './history-query.js';

/** Paths answered without a key. */
const PUBLIC_PATHS = new Set(['/api/v2/openapi.json', '/api/v2/docs']);

export async function apiRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // One validator for every API route: TypeBox (schema/validate.ts).
  useTypeBox(app);
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]!;
    if (PUBLIC_PATHS.has(path)) return;
    // Browsers' EventSource cannot send headers: the events stream also takes ?access_token=.
    await authenticate(ctx.store, request, path.endsWith('/events'));
  });
  // First, so that it sees every route registered after it.
  await openapiApi(app, ctx);
  await app.register(async (s) => endpointsApi(s, ctx));
  await app.register(async (s) => rulesApi(s, ctx));
  await app.register(async (s) => blobsApi(s, ctx));
  await app.register(async (s) => keysRoutesApi(s, ctx));
  await app.register(async (s) => historyApi(s, ctx));
  await app.register(async (s) => eventsApi(s, ctx));
}
