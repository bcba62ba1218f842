/**
 * The SQL of the history retention (KyselyStore.pruneHistory): the server-wide period and cap, per
 * endpoint, along its `(endpoint, created_at)` index, a chunk of the oldest per transaction, yielding
 * to requests between them. On SQLite, which runs on the main thread, one statement over a large
 * history held the process for the whole pass (bench/history.ts). The policy (which period, which
 * cap) and the job that runs it live in src/history/ (retention.ts). Hidden entries are left to the
 * purge: they neither count towards the cap nor are deleted here.
 */
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { deleteEntries, notHidden } from './history-table.js';

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
