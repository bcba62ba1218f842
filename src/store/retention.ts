/**
 * History retention: a background job that drops entries older than the retention period and those
 * beyond the per-endpoint cap. Runs shortly after start and then every `intervalMs`.
 */
import type { AppContext } from '../context.js';

const DAY = 86_400_000;

/** Runs one retention pass; returns how many entries went. */
export async function pruneHistoryOnce(ctx: Pick<AppContext, 'store' | 'config' | 'now'>): Promise<number> {
  return ctx.store.pruneHistory(
    ctx.now() - ctx.config.historyRetentionDays * DAY,
    ctx.config.historyMaxEntries,
  );
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
