/**
 * History retention: a background job that drops entries older than the retention period and those
 * beyond the per-endpoint cap. Runs shortly after start and then every `intervalMs`.
 */
import type { AppContext } from '../context.js';
import { planOf } from '../plans.js';

const DAY = 86_400_000;

/**
 * Runs one retention pass; returns how many entries went. The server-wide period and cap apply to
 * every endpoint; an endpoint whose plan keeps history for less time (`historyRetentionDays`) is
 * pruned to its plan's period as well.
 */
export async function pruneHistoryOnce(ctx: Pick<AppContext, 'store' | 'config' | 'now'>): Promise<number> {
  const now = ctx.now();
  let n = await ctx.store.pruneHistory(
    now - ctx.config.historyRetentionDays * DAY,
    ctx.config.historyMaxEntries,
  );
  for (const ep of await ctx.store.listEndpoints()) {
    const days = planOf(ctx.config, ep).historyRetentionDays;
    if (days !== null && days < ctx.config.historyRetentionDays) {
      n += await ctx.store.deleteHistory(ep.name, { dateTo: now - days * DAY - 1 });
    }
  }
  return n;
}

/** Starts the retention job; returns its stop function. */
export function startHistoryRetention(ctx: AppContext, intervalMs = 3_600_000): () => void {
  const run = (): void => {
    pruneHistoryOnce(ctx)
      .then((n) => {
        if (n > 0) ctx.log.info({ deleted: n }, 'history retention');
      })
      .catch((err: unknown) => ctx.log.error({ err }, 'history retention failed'));
  };
  const first = setTimeout(run, 5_000);
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
