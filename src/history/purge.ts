/**
 * The history purge: deletes, in the background, the entries a history delete has hidden. It looks
 * for work every `intervalMs` (entries hidden by this or another instance, or before a restart)
 * and, once it finds some, works through it in small transactions, yielding to requests between them.
 */
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { startJob, type Job } from '../jobs/index.js';
import type { Store } from '../store/index.js';

export interface HistoryPurgeOptions {
  intervalMs?: number;
  /** Entries per transaction: SQLite holds the process for them (about 30 ms per 500 on bench/history.ts). */
  chunk?: number;
  /** Whether this instance looks for work now (the leader of several); it always does without one. */
  lease?: (() => Promise<boolean>) | undefined;
}

/** The running purge: stop() stops looking for work and waits for the transaction under way. */
export type HistoryPurge = Job;

export function startHistoryPurge(
  store: Pick<Store, 'purgeHistory'>,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
  opts: HistoryPurgeOptions = {},
): HistoryPurge {
  const chunk = opts.chunk ?? 500;
  return startJob({
    name: 'history purge',
    intervalMs: opts.intervalMs ?? 1000,
    lease: opts.lease,
    log,
    run: async (signal) => {
      let total = 0;
      // Caught here rather than by the runner, so that what was purged before the failure is still reported.
      try {
        for (;;) {
          const n = await store.purgeHistory(chunk);
          total += n;
          if (n < chunk || signal.aborted) break;
          await yieldToRequests();
        }
      } catch (err) {
        log.error({ err }, 'history purge failed; will retry');
      }
      if (total > 0) log.info({ purged: total }, 'history purge');
    },
  });
}
