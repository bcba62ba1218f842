/**
 * Bringing one endpoint's stored history within its caps (SPEC §12), as entries arrive: the SQL of
 * KyselyStore.trimHistory. On SQLite it runs on the history worker's connection (history-worker.ts),
 * beside the inserts, so that counting and deleting never hold the thread that answers requests;
 * on PostgreSQL on the store's own pool. Hidden entries are left to the purge.
 */
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { deleteEntries, hasHidden, notHidden } from './history-table.js';

/** What an endpoint's visible history holds. */
export interface HistoryUsage {
  entries: number;
  bytes: number;
}

/**
 * Brings one endpoint's history within `maxEntries` and `maxBytes`, dropping its oldest entries, at
 * most `chunk` (and about 16 MiB) per transaction, yielding to requests between them. Returns what
 * the history holds afterwards and how many entries went.
 *
 * `known` is what the caller knows the endpoint holds (a count it had this function make, plus what
 * was written since, nothing removed since): the trim then deletes without counting. Counting reads
 * the endpoint's whole time index (100,000 entries by default), which under a steady load at the cap
 * cost the history worker more than its inserts. Count and sum read that index alone (it carries
 * each entry's size); the test of each entry against `history_hidden` is left out when the endpoint
 * has nothing hidden.
 *
 * `writeLocked`: the caller's transactions hold the database's write lock from their start (the
 * history worker's, BEGIN IMMEDIATE), so that no entry can be written or hidden between a chunk's
 * read and its delete. The oldest then go by one walk of the time index when the endpoint has
 * nothing hidden, rather than a lookup by id each (about a quarter less CPU an entry; trims are
 * half of the history worker's work under a steady load at the cap).
 */
export async function trimHistoryRows(
  db: Kysely<Database>,
  endpoint: string,
  caps: { maxEntries: number; maxBytes: number },
  opts: { known?: HistoryUsage; chunk?: number; writeLocked?: boolean } = {},
): Promise<HistoryUsage & { deleted: number }> {
  const chunk = opts.chunk ?? 500;
  const usage = { ...(opts.known ?? (await measure(db, endpoint))), deleted: 0 };
  const over = () => usage.entries > caps.maxEntries || usage.bytes > caps.maxBytes;
  while (over()) {
    const n = await db.transaction().execute(async (tx) => {
      // Nothing can be hidden or written meanwhile where the transaction holds the write lock.
      const byRange = opts.writeLocked === true && !(await hasHidden(tx, endpoint));
      let q = tx.selectFrom('requests').select(['id', 'size', 'created_at']).where('endpoint', '=', endpoint);
      if (!byRange) q = q.where(notHidden);
      const oldest = await q.orderBy('created_at').orderBy('id').limit(chunk).execute();
      const ids: string[] = [];
      let freed = 0;
      for (const row of oldest) {
        if (!over() || freed > 16 * 1024 * 1024) break;
        ids.push(row.id);
        freed += Number(row.size);
        usage.entries -= 1;
        usage.bytes -= Number(row.size);
      }
      const last = oldest[ids.length - 1];
      if (last) await deleteEntries(tx, endpoint, ids, byRange ? last : undefined);
      return ids.length;
    });
    usage.deleted += n;
    if (n === 0) break;
    await yieldToRequests();
  }
  return usage;
}

/** Counts an endpoint's visible entries and sums their sizes. */
async function measure(db: Kysely<Database>, endpoint: string): Promise<HistoryUsage> {
  let q = db
    .selectFrom('requests')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum<number | string | null>('size').as('bytes')])
    .where('endpoint', '=', endpoint);
  if (await hasHidden(db, endpoint)) q = q.where(notHidden);
  const r = await q.executeTakeFirstOrThrow();
  return { entries: Number(r.n), bytes: Number(r.bytes ?? 0) };
}
