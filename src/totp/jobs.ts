/**
 * The background purge of TOTP secrets nobody used for `totpRetentionDays` (SPEC §3: 90 days by
 * default). It runs once at start and then every hour; the clock is ctx.now(), so tests can move it.
 */
import type { TotpDeps } from './deps.js';

/** What the purge of unused secrets draws on. */
export type PurgeDeps = Pick<TotpDeps, 'config' | 'log' | 'now' | 'store'>;
import { startJob, type Job } from '../jobs/index.js';

/** How often the purge runs. */
export const PURGE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the secrets whose last use is more than `totpRetentionDays` before ctx.now() (a secret
 * last used exactly that long ago is kept). Returns how many were deleted.
 */
export async function purgeUnusedTotp(ctx: PurgeDeps): Promise<number> {
  const removed = await ctx.store.purgeTotp(ctx.now() - ctx.config.totpRetentionDays * DAY_MS);
  if (removed > 0) ctx.log.info({ removed }, 'purged unused TOTP secrets');
  return removed;
}

/**
 * Starts the purge: now, then every `intervalMs` (hourly), never keeping the process alive; with a
 * `lease`, only the ticks it grants run (the leader of several instances).
 */
export function startTotpPurge(
  ctx: PurgeDeps,
  intervalMs = PURGE_INTERVAL_MS,
  lease?: () => Promise<boolean>,
): Job {
  return startJob({
    name: 'TOTP purge',
    intervalMs,
    firstRunMs: 0,
    lease,
    log: ctx.log,
    run: async () => {
      await purgeUnusedTotp(ctx);
    },
  });
}

/** The same purge, with a stop function that clears its timers without waiting for a pass under way. */
export function startPurgeJob(ctx: PurgeDeps, intervalMs = PURGE_INTERVAL_MS): () => void {
  const job = startTotpPurge(ctx, intervalMs);
  return () => void job.stop();
}
