/** Public surface of the TOTP generator (SPEC §3): the API and the purge job (the `/2fa` page is the dashboard's). */
import type { FastifyInstance } from 'fastify';
import type { TotpDeps } from './deps.js';
import type { Job } from '../jobs/index.js';
import { startTotpPurge, type PurgeDeps } from './jobs.js';
import { QrPool } from './qr-pool.js';
import { totpApi } from './routes.js';
import { SecretBox } from '../secrets/index.js';

export { purgeUnusedTotp, PURGE_INTERVAL_MS, type PurgeDeps } from './jobs.js';
export { KEY_FILE } from '../secrets/index.js';
export type { TotpDeps } from './deps.js';

/**
 * Registers `/2FA/TOTP/…` (in a scope of its own, with its body parsers, CORS and rate limit). Loads (or creates) the encryption key first, so a bad key file stops the start.
 * QR images are read by a pool of worker threads, started at the first upload and terminated when
 * the server closes (once the requests in flight are answered).
 */
export async function totpRoutes(app: FastifyInstance, ctx: TotpDeps): Promise<void> {
  const box = await SecretBox.fromConfig(ctx.config);
  const { qrWorkers, qrQueue, qrTimeout } = ctx.config;
  const qr = new QrPool({ workers: qrWorkers, queue: qrQueue, timeoutMs: qrTimeout, log: ctx.log });
  app.addHook('onClose', async () => qr.close());
  await app.register(async (scope) => totpApi(scope, ctx, box, qr));
}

/**
 * Starts the background purge of unused secrets; its stop() waits for a pass under way. With a
 * `lease`, a pass runs only when it grants one (the leader of several instances).
 */
export function startTotpJobs(ctx: PurgeDeps, lease?: () => Promise<boolean>): Job {
  return startTotpPurge(ctx, undefined, lease);
}
