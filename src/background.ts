/**
 * The server's background jobs, started together and stopped together: the history purge (entries a
 * delete hid), the history retention, and the purge of unused TOTP secrets. Each runs on the shared
 * job runner (src/jobs/). The retention's policy is decided here, from the configuration and the
 * plans, so that the store applies periods without knowing where they come from.
 */
import type { AppContext } from './context.js';
import type { Config } from './config.js';
import type { Job } from './jobs/index.js';
import { historyRetentionDaysOf } from './plans.js';
import {
  applyHistoryRetention,
  startHistoryPurge,
  startHistoryRetention,
  type RetentionPolicy,
} from './store/index.js';
import { startTotpJobs } from './totp/index.js';

/** The retention the configuration asks for: its period and cap, shortened per endpoint by its plan. */
export function historyRetentionPolicy(config: Config): RetentionPolicy {
  return {
    retentionDays: config.historyRetentionDays,
    maxEntries: config.historyMaxEntries,
    retentionFor: (ep) => historyRetentionDaysOf(config, ep),
  };
}

/** Runs one retention pass now (ctx.now()); returns how many entries went. */
export function pruneHistoryOnce(ctx: Pick<AppContext, 'store' | 'config' | 'now'>): Promise<number> {
  return applyHistoryRetention(ctx.store, { now: ctx.now(), ...historyRetentionPolicy(ctx.config) });
}

/** Starts every background job; stop() stops them all and waits for the runs in flight. */
export function startBackgroundJobs(ctx: AppContext): Job {
  const jobs = [
    startTotpJobs(ctx),
    startHistoryRetention(ctx.store, ctx.log, { now: ctx.now, ...historyRetentionPolicy(ctx.config) }),
    startHistoryPurge(ctx.store, ctx.log),
  ];
  return {
    async stop() {
      await Promise.all(jobs.map((j) => j.stop()));
    },
  };
}
