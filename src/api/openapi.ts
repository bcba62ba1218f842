/** The API's own OpenAPI 3.1 document (/openapi.json) and reference page (/docs). */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

export async function openapiApi(_app: FastifyInstance, _ctx: AppContext): Promise<void> {
  // Routes are added by the change that builds this group.
}
