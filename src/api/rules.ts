/** Rules routes (/endpoints/:ep/rules…). */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

export async function rulesApi(_app: FastifyInstance, _ctx: AppContext): Promise<void> {
  // Routes are added by the change that builds this group.
}
