/**
 * The history's background jobs, started and stopped together: the retention (periods and caps,
 * retention.ts) and the purge of entries a delete hid (purge.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Job } from '../jobs/index.js';
import type { Store } from '../store/index.js';
import { startHistoryPurge } from './purge.js';
import { startHistoryRetention, type RetentionPolicy } from './retention.js';

export interface HistoryJobsOptions {
  store: Pick<Store, 'pruneHistory' | 'listEndpoints' | 'deleteHistory' | 'purgeHistory'>;
  log: Pick<FastifyBaseLogger, 'info' | 'error'>;
  now: () => number;
  retention: RetentionPolicy;
  /** Whether this instance runs a job's tick (the leader of several instances); all run without one. */
  lease?: (() => Promise<boolean>) | undefined;
}

/** Starts the retention and the purge; stop() stops both and waits for the runs in flight. */
export function startHistoryJobs(opts: HistoryJobsOptions): Job {
  const jobs = [
    startHistoryRetention(opts.store, opts.log, { now: opts.now, ...opts.retention, lease: opts.lease }),
    startHistoryPurge(opts.store, opts.log, { lease: opts.lease }),
  ];
  return {
    async stop() {
      await Promise.all(jobs.map((j) => j.stop()));
    },
  };
}
