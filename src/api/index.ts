/**
 * The management API v2 (SPEC §4), mounted under `/api/v2` (routes here are written relative to it). Every route authenticates first; route groups
 * live one per file and are registered here.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { authenticate } from './auth.js';

export { authenticate, requireAdmin, requireEndpointAccess, type Principal } from './auth.js';
export { createKey, ensureAdminKey, findKey, hashKey } from './keys.js';

/** Paths (below /api) answered without a key. */
const PUBLIC_PATHS = new Set(['/api/v2/openapi.json', '/api/v2/docs']);

export async function apiRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]!;
    if (PUBLIC_PATHS.has(path)) return;
    // Browsers' EventSource cannot send headers: the events stream also takes ?access_token=.
    await authenticate(ctx.store, request, path.endsWith('/events'));
  });
  // Route groups register here, e.g.: await app.register(async (s) => endpointApi(s, ctx)); // '/endpoints'
}
