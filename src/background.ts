/**
 * The server's background jobs, started together and stopped together: the history's (its retention
 * and its purge, src/history/), the purge of unused TOTP secrets and the CRUD items'
 * `crud.autoDelete`. Each runs on the shared job runner (src/jobs/). The history's retention reads
 * each endpoint's period from its plan here: history/ takes the plan's answer, not the plans.
 * With several instances on one database, each tick runs on the one instance that leads
 * (Store.leads: PostgreSQL's advisory lock), the others skip it; one instance always leads.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Job } from './jobs/index.js';
import { startJob } from './jobs/index.js';
import { effectiveSettings } from './mock/index.js';
import { historyRetentionDaysOf, planNameOf } from './plans.js';
import {
  applyHistoryRetention,
  historyRetentionPolicy,
  startHistoryJobs,
  type RetentionPolicy,
} from './history/index.js';
import { startTotpJobs } from './totp/index.js';
import type { Store } from './store/index.js';

/** The services the background jobs draw on. */
export interface BackgroundDeps {
  config: Config;
  store: Store;
  log: FastifyBaseLogger;
  /** The clock, injectable for tests. */
  now: () => number;
}

/** The retention the configuration asks for: its period and cap, shortened per endpoint by its plan. */
function retentionUnderPlans(config: Config): RetentionPolicy {
  return historyRetentionPolicy(config, (ep) => historyRetentionDaysOf(config, ep));
}

/** Runs one retention pass now (ctx.now()); returns how many entries went. */
export function pruneHistoryOnce(ctx: Pick<BackgroundDeps, 'store' | 'config' | 'now'>): Promise<number> {
  return applyHistoryRetention(ctx.store, { now: ctx.now(), ...retentionUnderPlans(ctx.config) });
}

// ---- CRUD collections (issue 13 part 3) ----

const DAY = 86_400_000;

/**
 * One pass of `crud.autoDelete` at ctx.now(): each endpoint with the setting on loses the CRUD items
 * created before its history retention period (its plan's, when shorter than the server's).
 * Returns how many items went.
 */
export async function deleteOldCrudItemsOnce(
  ctx: Pick<BackgroundDeps, 'store' | 'config' | 'now'>,
): Promise<number> {
  let n = 0;
  for (const ep of await ctx.store.listEndpoints()) {
    if (!effectiveSettings(ep.settings, planNameOf(ctx.config, ep)).crud.autoDelete) continue;
    n += await ctx.store.deleteCrudItemsBefore(
      ep.name,
      ctx.now() - historyRetentionDaysOf(ctx.config, ep) * DAY,
    );
  }
  return n;
}

function startCrudAutoDelete(ctx: BackgroundDeps, lease: () => Promise<boolean>): Job {
  return startJob({
    name: 'crud auto-delete',
    intervalMs: 3_600_000,
    firstRunMs: 5_000,
    lease,
    log: ctx.log,
    run: async () => {
      const n = await deleteOldCrudItemsOnce(ctx);
      if (n > 0) ctx.log.info({ deleted: n }, 'crud auto-delete');
    },
  });
}
// ---- end CRUD collections ----

/** Starts every background job; stop() stops them all and waits for the runs in flight. */
export function startBackgroundJobs(ctx: BackgroundDeps): Job {
  const lease = (): Promise<boolean> => ctx.store.leads();
  const jobs = [
    startTotpJobs(ctx, lease),
    startHistoryJobs({
      store: ctx.store,
      log: ctx.log,
      now: ctx.now,
      retention: retentionUnderPlans(ctx.config),
      lease,
    }),
    startCrudAutoDelete(ctx, lease),
  ];
  return {
    async stop() {
      await Promise.all(jobs.map((j) => j.stop()));
    },
  };
}
