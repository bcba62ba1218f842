/**
 * Retention of request history: entries older than the retention period and those beyond the
 * per-endpoint cap go. The policy (periods, cap) is given by the caller (the server, from its
 * configuration and the plans): neither this module nor the store knows of plans. Three layers,
 * from the top:
 *   - the job (startHistoryRetention): shortly after start, then hourly, on the shared job runner;
 *   - the pass (applyHistoryRetention): the server-wide period and cap over every endpoint, then each
 *     endpoint whose own period is shorter, through the Store interface;
 *   - the SQL (KyselyStore.pruneHistory, store/history-prune.ts): per endpoint, a chunk of the oldest
 *     per transaction, yielding to requests between them.
 * Hidden entries are left to the purge: they neither count towards the cap nor are deleted here.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { startJob, type Job } from '../jobs/index.js';
import type { EndpointRecord, Store } from '../store/index.js';

const DAY = 86_400_000;

/** What history is kept: decided outside the store (the server, from its configuration and the plans). */
export interface RetentionPolicy {
  /** The server-wide period, in days: older entries of every endpoint go. */
  retentionDays: number;
  /** The most entries an endpoint keeps; the oldest beyond it go. */
  maxEntries: number;
  /** An endpoint's own period, in days; one shorter than `retentionDays` prunes that endpoint further. */
  retentionFor: (ep: EndpointRecord) => number;
}

/** Runs one retention pass at `now`; returns how many entries went. */
export async function applyHistoryRetention(
  store: Pick<Store, 'pruneHistory' | 'listEndpoints' | 'deleteHistory'>,
  opts: RetentionPolicy & { now: number },
): Promise<number> {
  const { now, retentionDays } = opts;
  let n = await store.pruneHistory(now - retentionDays * DAY, opts.maxEntries);
  for (const ep of await store.listEndpoints()) {
    const days = opts.retentionFor(ep);
    if (days < retentionDays) n += await store.deleteHistory(ep.name, { dateTo: now - days * DAY - 1 });
  }
  return n;
}

export interface HistoryRetentionOptions extends RetentionPolicy {
  /** The clock. */
  now: () => number;
  /** Between two passes; hourly by default. */
  intervalMs?: number;
  /** The first pass, this long after start (5 s by default). */
  firstRunMs?: number;
  /** Whether this instance runs the pass now (the leader of several); every pass runs without one. */
  lease?: (() => Promise<boolean>) | undefined;
}

/** Starts the retention job; its stop() waits for a pass under way. */
export function startHistoryRetention(
  store: Pick<Store, 'pruneHistory' | 'listEndpoints' | 'deleteHistory'>,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
  opts: HistoryRetentionOptions,
): Job {
  return startJob({
    name: 'history retention',
    intervalMs: opts.intervalMs ?? 3_600_000,
    firstRunMs: opts.firstRunMs ?? 5_000,
    lease: opts.lease,
    log,
    run: async () => {
      const n = await applyHistoryRetention(store, { ...opts, now: opts.now() });
      if (n > 0) log.info({ deleted: n }, 'history retention');
    },
  });
}

/**
 * The retention a configuration asks for: its period and per-endpoint cap, shortened per endpoint by
 * `retentionDaysOf` (the endpoint's plan, which the caller reads: plans.ts reads endpoint/, which
 * records history, so history/ takes the plan's answer rather than the plans).
 */
export function historyRetentionPolicy(
  config: Pick<Config, 'historyRetentionDays' | 'historyMaxEntries'>,
  retentionDaysOf: (ep: EndpointRecord) => number,
): RetentionPolicy {
  return {
    retentionDays: config.historyRetentionDays,
    maxEntries: config.historyMaxEntries,
    retentionFor: retentionDaysOf,
  };
}
