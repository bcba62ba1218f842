/**
 * The background purge of TOTP secrets nobody used for `totpRetentionDays` (SPEC §3: 90 days by
 * default). It runs once at start and then every hour; the clock is ctx.now(), so tests can move it.
 */
import type { AppContext } from '../context.js';

/** How often the purge runs. */
export const PURGE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the secrets whose last use is more than `totpRetentionDays` before ctx.now() (a secret
 * last used exactly that long ago is kept). Returns how many were deleted.
 */
export async function purgeUnusedTotp(ctx: AppContext): Promise<number> {
  const removed = await ctx.store.purgeTotp(ctx.now() - ctx.config.totpRetentionDays * DAY_MS);
  if (removed > 0) ctx.log.info({ removed }, 'purged unused TOTP secrets');
  return removed;
}

/** Starts the purge (now, then hourly, never keeping the process alive); returns its stop function. */
export function startPurgeJob(ctx: AppContext, intervalMs = PURGE_INTERVAL_MS): () => void {
  let stopped = false;
  const run = (): void => {
    if (stopped) return;
    purgeUnusedTotp(ctx).catch((err: unknown) => {
      // A store closed during shutdown is not worth a log line.
      if (!stopped) ctx.log.error({ err }, 'TOTP purge failed');
    });
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
