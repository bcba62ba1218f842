/** Endpoints, settings and plans routes (/endpoints, /endpoints/:ep, /endpoints/:ep/settings). */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

export async function endpointsApi(_app: FastifyInstance, _ctx: AppContext): Promise<void> {
  // Routes are added by the change that builds this group.
}
