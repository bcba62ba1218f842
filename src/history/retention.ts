/**
 * Retention of request history: entries older than the retention period and those beyond the
 * per-endpoint cap go. The policy (periods, cap) is given by the caller: the store knows nothing of
 * plans. Three layers, from the top:
 *   - the job (startHistoryRetention): shortly after start, then hourly, on the shared job runner;
 *   - the pass (applyHistoryRetention): the server-wide period and cap over every endpoint, then each
 *     endpoint whose own period is shorter, through the Store interface;
 *   - the SQL (pruneHistoryRows, KyselyStore.pruneHistory's implementation): per endpoint, along its
 *     `(endpoint, created_at)` index, a chunk of the oldest per transaction, yielding to requests
 *     between them. On SQLite, which runs on the main thread, one statement over a large history held
 *     the process for the whole pass (bench/history.ts).
 * Hidden entries are left to the purge: they neither count towards the cap nor are deleted here.
 */
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { startJob, type Job } from '../jobs/index.js';
import type { Database } from './schema.js';
import { deleteEntries, notHidden } from './history-table.js';
import type { EndpointRecord, Store } from './types.js';

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
    log,
    run: async () => {
      const n = await applyHistoryRetention(store, { ...opts, now: opts.now() });
      if (n > 0) log.info({ deleted: n }, 'history retention');
    },
  });
}

/**
 * The server-wide period and cap in SQL (KyselyStore.pruneHistory); returns how many entries went.
 * `count` counts an endpoint's visible entries (the history table's own count, which skips the
 * hidden-id check when nothing is hidden: a count over the whole table, grouped by endpoint, held
 * SQLite's thread for ~0.2 s per million entries).
 */
export async function pruneHistoryRows(
  db: Kysely<Database>,
  count: (endpoint: string) => Promise<number>,
  before: number,
  maxPerEndpoint: number,
  chunk = 500,
): Promise<number> {
  let total = 0;
  for (const endpoint of await endpointsWithHistory(db)) {
    total += await deleteOlder(db, endpoint, before, chunk);
    if ((await count(endpoint)) <= maxPerEndpoint) continue;
    const edge = await db
      .selectFrom('requests')
      .select('created_at')
      .where('endpoint', '=', endpoint)
      .where(notHidden)
      .orderBy('created_at', 'desc')
      .offset(maxPerEndpoint)
      .limit(1)
      .executeTakeFirst();
    if (edge) total += await deleteOlder(db, endpoint, Number(edge.created_at) + 1, chunk);
  }
  return total;
}

/** The endpoints that have history, one index lookup each (a loose index scan). */
async function endpointsWithHistory(db: Kysely<Database>): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    let q = db.selectFrom('requests').select((eb) => eb.fn.min('endpoint').as('next'));
    if (out.length > 0) q = q.where('endpoint', '>', out[out.length - 1]!);
    const r = await q.executeTakeFirst();
    if (r?.next === undefined || r.next === null) return out;
    out.push(r.next);
  }
}

/** Deletes the endpoint's visible entries older than `before`, oldest first, `chunk` per transaction. */
async function deleteOlder(
  db: Kysely<Database>,
  endpoint: string,
  before: number,
  chunk: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await db.transaction().execute(async (tx) => {
      const rows = await tx
        .selectFrom('requests')
        .select('id')
        .where('endpoint', '=', endpoint)
        .where('created_at', '<', before)
        .where(notHidden)
        .orderBy('created_at')
        .limit(chunk)
        .execute();
      if (rows.length === 0) return 0;
      await deleteEntries(
        tx,
        endpoint,
        rows.map((r) => r.id),
      );
      return rows.length;
    });
    total += n;
    if (n < chunk) return total;
    await yieldToRequests();
  }
}
