/**
 * Request history over Kysely, both dialects.
 *
 * A filtered delete hides the matching entries at once and leaves the disk work to a background
 * purge: it copies their ids into `history_hidden` (one narrow insert, ~0.1 s for 100,000 entries)
 * and every read skips hidden ids. `purge()` then deletes the hidden entries and their files in
 * small transactions, so a large delete neither holds the caller for seconds nor blocks the process
 * (SQLite runs on the main thread) while it rewrites half the table (bench/history.ts).
 */
import { sql, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import type {
  Behavior,
  CalloutRecord,
  ContractViolation,
  GrpcRecord,
  HistoryEntry,
  HistoryFile,
  HistoryFilter,
  NewHistoryEntry,
  Page,
} from './types.js';

import { fileRows, toRow, type RequestRow } from './history-row.js';

export type { FileRow, RequestRow } from './history-row.js';

/** Writes history entries and their files in one transaction (at once, or off the thread). */
export type BulkHistoryInsert = (entries: NewHistoryEntry[]) => void | Promise<void>;

type Db = Kysely<Database> | Transaction<Database>;
type RequestsEb = ExpressionBuilder<Database, 'requests'>;

function toEntry(r: RequestRow): HistoryEntry {
  return {
    id: r.id,
    endpoint: r.endpoint,
    createdAt: Number(r.created_at),
    method: r.method,
    path: r.path,
    ip: r.ip,
    status: r.status,
    behavior: r.behavior as Behavior,
    ruleMatched: Number(r.rule_matched) === 1,
    ruleId: r.rule_id,
    durationMs: Number(r.duration_ms),
    requestHeaders: JSON.parse(r.request_headers) as Record<string, string>,
    requestBody: r.request_body,
    requestBodyTruncated: Number(r.request_body_truncated) === 1,
    httpVersion: r.http_version ?? '1.1',
    isMultipart: Number(r.is_multipart) === 1,
    responseHeaders: JSON.parse(r.response_headers) as Record<string, string | string[]>,
    responseBody: r.response_body,
    responseBodyTruncated: Number(r.response_body_truncated) === 1,
    files: JSON.parse(r.files) as HistoryEntry['files'],
    problems: JSON.parse(r.problems) as string[],
    ...(r.response_name !== null ? { responseName: r.response_name } : {}),
    // Rows written before the column existed have no `callout` at all.
    ...(r.callout != null ? { callout: JSON.parse(r.callout) as CalloutRecord } : {}),
    ...(r.grpc != null ? { grpc: JSON.parse(r.grpc) as GrpcRecord } : {}),
    // Null: not checked (no document, validation off, or a row older than the columns).
    ...(r.validation != null ? { validation: JSON.parse(r.validation) as ContractViolation[] } : {}),
    ...(r.response_validation != null
      ? { responseValidation: JSON.parse(r.response_validation) as ContractViolation[] }
      : {}),
  };
}

function encodeCursor(createdAt: number, id: string): string {
  return Buffer.from(`${createdAt}:${id}`).toString('base64url');
}

/** Decodes a list cursor; undefined when it is not one of ours. */
export function decodeCursor(cursor: string): { createdAt: number; id: string } | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^(\d{1,16}):([A-Za-z0-9-]{1,64})$/.exec(text);
  if (!m) return undefined;
  return { createdAt: Number(m[1]), id: m[2]! };
}

/** `requests` rows whose id was not hidden by a delete. */
export function notHidden(eb: RequestsEb) {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('history_hidden')
        .select(sql.lit(1).as('one'))
        .whereRef('history_hidden.endpoint', '=', 'requests.endpoint')
        .whereRef('history_hidden.created_at', '=', 'requests.created_at')
        .whereRef('history_hidden.id', '=', 'requests.id'),
    ),
  );
}

/**
 * `?validation=` (SPEC §7). The lists are stored as JSON, an empty one always as `[]`
 * (history-row.ts), null when not checked. `failed`: either list is not `[]` (a null compares as
 * unknown, so it never counts). `passed`: at least one list was checked and neither holds anything.
 */
function validationExpr(eb: RequestsEb, which: 'failed' | 'passed') {
  if (which === 'failed') return eb.or([eb('validation', '<>', '[]'), eb('response_validation', '<>', '[]')]);
  return eb.and([
    eb.or([eb('validation', '=', '[]'), eb('response_validation', '=', '[]')]),
    eb.or([eb('validation', 'is', null), eb('validation', '=', '[]')]),
    eb.or([eb('response_validation', 'is', null), eb('response_validation', '=', '[]')]),
  ]);
}

/**
 * Whether some of the endpoint's entries are hidden and not purged yet. Reads (and the cap's count)
 * ask first and add `notHidden` only then: on a table with nothing hidden it would still cost a probe
 * of `history_hidden` per row.
 */
export async function hasHidden(db: Db, endpoint: string): Promise<boolean> {
  const r = await db
    .selectFrom('history_hidden')
    .select('id')
    .where('endpoint', '=', endpoint)
    .limit(1)
    .executeTakeFirst();
  return r !== undefined;
}

/**
 * Deletes entries of one endpoint and their files, by id (the purge, retention and trims). `through`:
 * `ids` are all of the endpoint's entries up to that one in time order (created_at, then id), so the
 * rows go by one walk of the time index instead of a lookup by id each; only where nothing can be
 * written or hidden between the read that found `ids` and this delete (history-trim.ts).
 */
export async function deleteEntries(
  tx: Transaction<Database>,
  endpoint: string,
  ids: string[],
  through?: { id: string; created_at: number },
): Promise<void> {
  await tx
    .deleteFrom('request_files')
    .where('endpoint', '=', endpoint)
    .where('request_id', 'in', ids)
    .execute();
  if (through)
    await tx
      .deleteFrom('requests')
      .where('endpoint', '=', endpoint)
      .where((eb) => eb(eb.refTuple('created_at', 'id'), '<=', eb.tuple(through.created_at, through.id)))
      .execute();
  // By id alone (ids are unique): with `endpoint` too, SQLite walks an endpoint index instead.
  else await tx.deleteFrom('requests').where('id', 'in', ids).execute();
}

/**
 * How long the purge trusts that nothing is hidden when this process has hidden nothing since it last
 * found the table empty: entries hidden by another instance sharing the database, or left over by one
 * that stopped, wait at most this long.
 */
const PURGE_RECHECK_MS = 60_000;

/**
 * The row with every U+0000 in its text shown as U+FFFD, for PostgreSQL: its `text` cannot hold the
 * character, and the whole batch (and every batch queued behind it) would fail on each retry.
 * SQLite keeps the character.
 */
function withoutNul<R extends object>(row: R): R {
  const out = { ...row } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out))
    if (typeof v === 'string' && v.includes('\u0000')) out[k] = v.replaceAll('\u0000', '\ufffd');
  return out as R;
}

export class HistoryTable {
  /** Deletes that hid entries on this connection, counted. */
  private hides = 0;
  /** When the purge last found nothing left, and how many hides it had seen then. */
  private purgedAll: { hides: number; at: number } | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
    /** A faster insert where the driver offers one (SQLite: prepared statements, on a worker thread). */
    private readonly bulkInsert?: BulkHistoryInsert,
  ) {}

  async insert(entries: NewHistoryEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (this.bulkInsert) {
      await this.bulkInsert(entries);
      return;
    }
    await this.db.transaction().execute(async (tx) => {
      // Chunked to stay under SQLite's bound-parameter limit.
      const inserted = new Set<string>();
      for (let i = 0; i < entries.length; i += 200) {
        const chunk = entries.slice(i, i + 200);
        const rows = await tx
          .insertInto('requests')
          .values(chunk.map((e) => (this.dialect === 'postgres' ? withoutNul(toRow(e)) : toRow(e))))
          .onConflict((oc) => oc.column('id').doNothing())
          .returning('id')
          .execute();
        for (const r of rows) inserted.add(r.id);
      }
      // A batch written again (a retry) skips the entries already there, and their files with them.
      const files = fileRows(entries.filter((e) => inserted.has(e.entry.id)));
      for (let i = 0; i < files.length; i += 100) {
        await tx
          .insertInto('request_files')
          .values(files.slice(i, i + 100).map((f) => (this.dialect === 'postgres' ? withoutNul(f) : f)))
          .execute();
      }
    });
  }

  private applyFilter<O>(
    q: SelectQueryBuilder<Database, 'requests', O>,
    endpoint: string,
    f: HistoryFilter,
    hiding: boolean,
  ): SelectQueryBuilder<Database, 'requests', O> {
    return q.where((eb) => this.filterExpr(eb, endpoint, f, hiding));
  }

  private filterExpr(eb: RequestsEb, endpoint: string, f: HistoryFilter, hiding: boolean) {
    const conds = [eb('endpoint', '=', endpoint)];
    if (f.dateFrom !== undefined) conds.push(eb('created_at', '>=', f.dateFrom));
    if (f.dateTo !== undefined) conds.push(eb('created_at', '<=', f.dateTo));
    if (f.method !== undefined) conds.push(eb('method', '=', f.method.toUpperCase()));
    if (f.status !== undefined) conds.push(eb('status', '=', f.status));
    if (f.behavior !== undefined) conds.push(eb('behavior', '=', f.behavior));
    if (f.ruleMatched !== undefined) conds.push(eb('rule_matched', '=', f.ruleMatched ? 1 : 0));
    if (f.isMultipart !== undefined) conds.push(eb('is_multipart', '=', f.isMultipart ? 1 : 0));
    if (f.hasAttachments !== undefined) conds.push(eb('files', f.hasAttachments ? '<>' : '=', '[]'));
    if (f.validation !== undefined) conds.push(validationExpr(eb, f.validation));
    if (f.path !== undefined) {
      if ('regex' in f.path) {
        conds.push(
          this.dialect === 'postgres'
            ? eb(sql`${sql.ref('path')} ~ ${f.path.regex}`, '=', sql.lit(true))
            : eb(sql`regexp(${f.path.regex}, ${sql.ref('path')})`, '=', 1),
        );
      } else conds.push(this.contains(eb, 'path', f.path.substring));
    }
    if (f.requestBody !== undefined) conds.push(this.contains(eb, 'request_body', f.requestBody));
    if (f.responseBody !== undefined) conds.push(this.contains(eb, 'response_body', f.responseBody));
    if (hiding) conds.push(notHidden(eb));
    return eb.and(conds);
  }

  /** Case-sensitive substring test, the same on both dialects. */
  private contains(eb: RequestsEb, col: 'path' | 'request_body' | 'response_body', text: string) {
    const fn = this.dialect === 'postgres' ? 'strpos' : 'instr';
    return eb(eb.fn<number>(fn, [eb.ref(col), eb.val(text)]), '>', 0);
  }

  async list(
    endpoint: string,
    filter: HistoryFilter,
    limit: number,
    cursor?: string,
  ): Promise<Page<HistoryEntry>> {
    const hiding = await hasHidden(this.db, endpoint);
    let q = this.applyFilter(this.db.selectFrom('requests').selectAll(), endpoint, filter, hiding);
    if (cursor !== undefined) {
      const c = decodeCursor(cursor);
      if (c) {
        q = q.where((eb) =>
          eb.or([
            eb('created_at', '<', c.createdAt),
            eb.and([eb('created_at', '=', c.createdAt), eb('id', '<', c.id)]),
          ]),
        );
      }
    }
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    const hasMore = rows.length > limit;
    const data = rows.slice(0, limit).map(toEntry);
    const last = data[data.length - 1];
    return { data, hasMore, cursor: hasMore && last ? encodeCursor(last.createdAt, last.id) : null };
  }

  async count(endpoint: string, filter: HistoryFilter): Promise<number> {
    const hiding = await hasHidden(this.db, endpoint);
    const r = await this.applyFilter(
      this.db.selectFrom('requests').select((eb) => eb.fn.countAll().as('n')),
      endpoint,
      filter,
      hiding,
    ).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /**
   * Every endpoint's entry count in one grouped query (the endpoint list): one query whatever the
   * number of endpoints, where a count per endpoint cost 10,001 queries and 12-20 s. Endpoints without
   * entries are absent from the map.
   */
  async countAll(): Promise<Map<string, number>> {
    const anyHidden = await this.db.selectFrom('history_hidden').select('id').limit(1).executeTakeFirst();
    let q = this.db
      .selectFrom('requests')
      .select((eb) => ['endpoint', eb.fn.countAll().as('n')])
      .groupBy('endpoint');
    if (anyHidden) q = q.where(notHidden);
    const rows = await q.execute();
    return new Map(rows.map((r) => [r.endpoint, Number(r.n)]));
  }

  async get(endpoint: string, id: string): Promise<HistoryEntry | undefined> {
    const r = await this.db
      .selectFrom('requests')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .where('id', '=', id)
      .where(notHidden)
      .executeTakeFirst();
    return r && toEntry(r);
  }

  async deleteOne(endpoint: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const visible = await tx
        .selectFrom('requests')
        .select('id')
        .where('endpoint', '=', endpoint)
        .where('id', '=', id)
        .where(notHidden)
        .executeTakeFirst();
      if (!visible) return false; // unknown, or already deleted and waiting for the purge
      await tx
        .deleteFrom('request_files')
        .where('endpoint', '=', endpoint)
        .where('request_id', '=', id)
        .execute();
      const r = await tx
        .deleteFrom('requests')
        .where('endpoint', '=', endpoint)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    });
  }

  /** Hides every matching entry at once (gone from every read); `purge()` removes them. Returns the count. */
  async delete(endpoint: string, filter: HistoryFilter): Promise<number> {
    // Two deletes racing on PostgreSQL may pick the same entry: the second then fails on the key and
    // runs again, now seeing the first one's ids as hidden. (ON CONFLICT DO NOTHING would spare the
    // retry but writes an extra WAL record per row: 0.43 s instead of 0.27 s for 100,000 entries.)
    for (let attempt = 1; ; attempt++) {
      try {
        const hidden = await this.db.transaction().execute(async (tx) => {
          const hiding = await hasHidden(tx, endpoint);
          const r = await tx
            .insertInto('history_hidden')
            .columns(['endpoint', 'created_at', 'id'])
            .expression((eb) =>
              eb
                .selectFrom('requests')
                .select(['endpoint', 'created_at', 'id'])
                .where((w) => this.filterExpr(w, endpoint, filter, hiding)),
            )
            .executeTakeFirst();
          return Number(r.numInsertedOrUpdatedRows ?? 0);
        });
        // Counted once committed: a purge that read the table before the commit has not seen them.
        if (hidden > 0) this.hides++;
        return hidden;
      } catch (err) {
        const uniqueViolation = (err as { code?: unknown }).code === '23505';
        if (!uniqueViolation || attempt === 3) throw err;
      }
    }
  }

  /**
   * Deletes up to `limit` hidden entries with their files, in one transaction; returns how many it
   * took (fewer than `limit`: nothing is left). Once it has found nothing left, it does not look
   * again until this connection hides more or PURGE_RECHECK_MS have passed: the purge job asks
   * every second, and an idle service need not query its database every second for nothing.
   */
  async purge(limit: number, now = Date.now()): Promise<number> {
    const idle = this.purgedAll;
    if (idle && idle.hides === this.hides && now - idle.at < PURGE_RECHECK_MS) return 0;
    const hides = this.hides;
    const purged = await this.purgeChunk(limit);
    if (purged < limit) this.purgedAll = { hides, at: now };
    return purged;
  }

  private async purgeChunk(limit: number): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      // Oldest first, in key order: a chunk's entries are neighbours in `requests` and its indexes.
      const rows = await tx
        .selectFrom('history_hidden')
        .select(['endpoint', 'created_at', 'id'])
        .orderBy('endpoint')
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      const byEndpoint = new Map<string, typeof rows>();
      for (const r of rows) {
        const group = byEndpoint.get(r.endpoint);
        if (group) group.push(r);
        else byEndpoint.set(r.endpoint, [r]);
      }
      for (const [endpoint, group] of byEndpoint) {
        const ids = group.map((r) => r.id);
        await deleteEntries(tx, endpoint, ids);
        await tx
          .deleteFrom('history_hidden')
          .where('endpoint', '=', endpoint)
          .where('created_at', '>=', Number(group[0]!.created_at))
          .where('created_at', '<=', Number(group[group.length - 1]!.created_at))
          .where('id', 'in', ids)
          .execute();
      }
      return rows.length;
    });
  }

  /** How many deleted entries still wait for the purge. */
  async purgeBacklog(): Promise<number> {
    const r = await this.db
      .selectFrom('history_hidden')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** Everything of one endpoint, hidden or not, at once (the endpoint is being deleted). */
  async deleteEndpointHistory(tx: Transaction<Database>, endpoint: string): Promise<void> {
    await tx.deleteFrom('request_files').where('endpoint', '=', endpoint).execute();
    await tx.deleteFrom('requests').where('endpoint', '=', endpoint).execute();
    await tx.deleteFrom('history_hidden').where('endpoint', '=', endpoint).execute();
  }

  /** Replaces an entry's callout; its weight follows (the size column, for the byte caps). */
  async setCallout(endpoint: string, id: string, callout: CalloutRecord): Promise<boolean> {
    const text = JSON.stringify(callout);
    const r = await this.db
      .updateTable('requests')
      .set((eb) => ({
        callout: text,
        size: sql<number>`${eb.ref('size')} + ${text.length} - coalesce(length(${eb.ref('callout')}), 0)`,
      }))
      .where('endpoint', '=', endpoint)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async getFile(endpoint: string, requestId: string, fieldName: string): Promise<HistoryFile | undefined> {
    const r = await this.db
      .selectFrom('request_files')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .where('request_id', '=', requestId)
      .where('field_name', '=', fieldName)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('requests')
            .select(sql.lit(1).as('one'))
            .whereRef('requests.id', '=', 'request_files.request_id')
            .where(notHidden),
        ),
      )
      .orderBy('seq')
      .executeTakeFirst();
    return (
      r && {
        requestId: r.request_id,
        fieldName: r.field_name,
        fileName: r.file_name,
        contentType: r.content_type,
        size: Number(r.size),
        data: Buffer.from(r.data),
      }
    );
  }
}
