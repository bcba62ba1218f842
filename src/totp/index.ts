/** Public surface of the TOTP generator (SPEC §3). */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** Registers `/2FA/TOTP/…` and the `/2fa` page. */
export async function totpRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {
  // Routes are added by the change that builds the TOTP generator.
}

/** Starts the background purge of unused secrets; returns its stop function. */
export function startTotpJobs(_ctx: AppContext): () => void {
  return () => undefined;
}
