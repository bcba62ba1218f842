/**
 * The history purge: deletes, in the background, the entries a history delete has hidden. It looks
 * for work every `intervalMs` (entries hidden by this or another instance, or before a restart)
 * and, once it finds some, works through it in small transactions, yielding to requests between them.
 */
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Store } from './types.js';

export interface HistoryPurgeOptions {
  intervalMs?: number;
  /** Entries per transaction: SQLite holds the process for them (about 30 ms per 500 on bench/history.ts). */
  chunk?: number;
}

export interface HistoryPurge {
  /** Stops looking for work and waits for the transaction under way. */
  stop(): Promise<void>;
}

export function startHistoryPurge(
  store: Pick<Store, 'purgeHistory'>,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
  opts: HistoryPurgeOptions = {},
): HistoryPurge {
  const chunk = opts.chunk ?? 500;
  let stopped = false;
  let running: Promise<void> | undefined;

  const work = async (): Promise<void> => {
    let total = 0;
    try {
      for (;;) {
        const n = await store.purgeHistory(chunk);
        total += n;
        if (n < chunk || stopped) break;
        await yieldToRequests();
      }
    } catch (err) {
      log.error({ err }, 'history purge failed; will retry');
    }
    if (total > 0) log.info({ purged: total }, 'history purge');
  };
  const run = (): void => {
    if (running || stopped) return;
    running = work().finally(() => (running = undefined));
  };

  const timer = setInterval(run, opts.intervalMs ?? 1000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
