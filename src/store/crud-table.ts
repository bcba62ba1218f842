/**
 * Items of CRUD collections (the `crud` rule action, issue 13 part 3): one row per endpoint,
 * collection and item id, the item's JSON object as text. Writes that could pass a cap (items per
 * collection, items and bytes per endpoint, bytes per item) check it in the same transaction as the
 * write. On PostgreSQL shared by several instances (`locks`), under the endpoint's advisory lock
 * (LOCK_SPACE.crud), taken before the count is read: two creations on any instances never both see
 * room for the last item. SQLite runs one transaction at a time and needs none; one instance on
 * PostgreSQL may pass a count cap by one when two creations race. Ids are unique by the table's key.
 */
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Kysely, Transaction } from 'kysely';
import { LOCK_SPACE, lockForTransaction, type AdvisoryLocks } from './advisory.js';
import type { Database } from './schema.js';
import type { CrudCaps, CrudItem, CrudRefusal, JsonObject } from './types.js';

type Row = Pick<Database['crud_items'], 'id' | 'data' | 'created_at' | 'updated_at'>;

function item(r: Row): CrudItem {
  return {
    id: r.id,
    data: JSON.parse(r.data) as JsonObject,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

const COLUMNS = ['id', 'data', 'created_at', 'updated_at'] as const;

export class CrudTable {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
    /** PostgreSQL shared by several instances: capped writes hold the endpoint's advisory lock. */
    private readonly locks: AdvisoryLocks | undefined = undefined,
  ) {}

  async list(
    endpoint: string,
    collection: string,
    limit: number,
    offset: number,
  ): Promise<{ items: CrudItem[]; total: number }> {
    const rows = await this.db
      .selectFrom('crud_items')
      .select(COLUMNS)
      .where('endpoint', '=', endpoint)
      .where('collection', '=', collection)
      .orderBy('seq', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    const total = await this.count(endpoint, collection);
    return { items: rows.map(item), total };
  }

  /** How many items the collection holds. */
  private async count(endpoint: string, collection: string): Promise<number> {
    const n = await this.db
      .selectFrom('crud_items')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('endpoint', '=', endpoint)
      .where('collection', '=', collection)
      .executeTakeFirstOrThrow();
    return Number(n.n);
  }

  /**
   * A list page bounded in bytes: the items' stored JSON texts, newest first from `offset`, at most
   * `limit` of them and as many as fit `[` + texts joined by `,` + `]` within `maxBytes` (at least one
   * item, whatever its size). Sizes are read first, from the rows without their data, so that no
   * more than the page is ever read; an item that grew between the two reads is left for the next page.
   */
  async page(
    endpoint: string,
    collection: string,
    limit: number,
    offset: number,
    maxBytes: number,
  ): Promise<{ texts: string[]; bytes: number; total: number }> {
    const sizes = await this.db
      .selectFrom('crud_items')
      .select(['seq', 'size'])
      .where('endpoint', '=', endpoint)
      .where('collection', '=', collection)
      .orderBy('seq', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    // `bytes` counts the page so far without its closing `]`; one more item costs a comma and itself.
    const fits = (n: number, bytes: number, size: number): boolean =>
      n === 0 || bytes + 1 + size + 1 <= maxBytes;
    const chosen: number[] = [];
    let planned = 1;
    for (const r of sizes) {
      if (!fits(chosen.length, planned, Number(r.size))) break;
      planned += Number(r.size) + (chosen.length === 0 ? 0 : 1);
      chosen.push(Number(r.seq));
    }
    const rows =
      chosen.length === 0
        ? []
        : await this.db
            .selectFrom('crud_items')
            .select('data')
            .where('seq', 'in', chosen)
            .orderBy('seq', 'desc')
            .execute();
    const texts: string[] = [];
    let bytes = 1;
    for (const { data } of rows) {
      const size = Buffer.byteLength(data);
      if (!fits(texts.length, bytes, size)) break;
      bytes += size + (texts.length === 0 ? 0 : 1);
      texts.push(data);
    }
    const total = await this.count(endpoint, collection);
    return { texts, bytes: bytes + 1, total };
  }

  async get(endpoint: string, collection: string, id: string): Promise<CrudItem | undefined> {
    const r = await this.db
      .selectFrom('crud_items')
      .select(COLUMNS)
      .where('endpoint', '=', endpoint)
      .where('collection', '=', collection)
      .where('id', '=', id)
      .executeTakeFirst();
    return r && item(r);
  }

  async insert(
    endpoint: string,
    collection: string,
    it: CrudItem,
    caps: CrudCaps,
  ): Promise<{ ok: true } | { ok: false; why: CrudRefusal }> {
    const data = JSON.stringify(it.data);
    const size = Buffer.byteLength(data);
    if (size > caps.maxItemBytes) return { ok: false, why: 'too_large' };
    return this.db.transaction().execute(async (tx) => {
      await this.lockCaps(tx, endpoint);
      if (await this.exists(tx, endpoint, collection, it.id)) return { ok: false, why: 'conflict' };
      const inCollection = await tx
        .selectFrom('crud_items')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('endpoint', '=', endpoint)
        .where('collection', '=', collection)
        .executeTakeFirstOrThrow();
      if (Number(inCollection.n) >= caps.maxItems) return { ok: false, why: 'collection_full' };
      const usage = await this.usage(tx, endpoint);
      if (usage.items >= caps.maxEndpointItems || usage.bytes + size > caps.maxEndpointBytes)
        return { ok: false, why: 'endpoint_full' };
      const r = await tx
        .insertInto('crud_items')
        .values({
          endpoint,
          collection,
          id: it.id,
          created_at: it.createdAt,
          updated_at: it.updatedAt,
          size,
          data,
        })
        .onConflict((oc) => oc.columns(['endpoint', 'collection', 'id']).doNothing())
        .executeTakeFirst();
      // A creation of the same id that committed after our check: the unique key decides.
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0 ? { ok: true } : { ok: false, why: 'conflict' };
    });
  }

  async update(
    endpoint: string,
    collection: string,
    id: string,
    change: (old: JsonObject) => JsonObject,
    at: number,
    caps: CrudCaps,
  ): Promise<{ ok: true; item: CrudItem } | { ok: false; why: CrudRefusal } | undefined> {
    return this.db.transaction().execute(async (tx) => {
      let q = tx
        .selectFrom('crud_items')
        .select([...COLUMNS, 'size'])
        .where('endpoint', '=', endpoint)
        .where('collection', '=', collection)
        .where('id', '=', id);
      // SQLite runs one transaction at a time; PostgreSQL must lock the row for the read-merge-write.
      if (this.dialect === 'postgres') q = q.forUpdate();
      const old = await q.executeTakeFirst();
      if (!old) return undefined;
      const next = change(JSON.parse(old.data) as JsonObject);
      const data = JSON.stringify(next);
      const size = Buffer.byteLength(data);
      if (size > caps.maxItemBytes) return { ok: false, why: 'too_large' };
      const growth = size - Number(old.size);
      if (growth > 0) {
        // Holding the row already: the lock's holders never wait for a row, so no two wait on each other.
        await this.lockCaps(tx, endpoint);
        if ((await this.usage(tx, endpoint)).bytes + growth > caps.maxEndpointBytes)
          return { ok: false, why: 'endpoint_full' };
      }
      await tx
        .updateTable('crud_items')
        .set({ data, size, updated_at: at })
        .where('endpoint', '=', endpoint)
        .where('collection', '=', collection)
        .where('id', '=', id)
        .execute();
      return { ok: true, item: { id, data: next, createdAt: Number(old.created_at), updatedAt: at } };
    });
  }

  async delete(endpoint: string, collection: string, id: string): Promise<CrudItem | undefined> {
    return this.db.transaction().execute(async (tx) => {
      const old = await tx
        .selectFrom('crud_items')
        .select(COLUMNS)
        .where('endpoint', '=', endpoint)
        .where('collection', '=', collection)
        .where('id', '=', id)
        .executeTakeFirst();
      if (!old) return undefined;
      const r = await tx
        .deleteFrom('crud_items')
        .where('endpoint', '=', endpoint)
        .where('collection', '=', collection)
        .where('id', '=', id)
        .executeTakeFirst();
      // Deleted by a concurrent request between the read and the delete: it answers, not us.
      return Number(r.numDeletedRows) > 0 ? item(old) : undefined;
    });
  }

  /** Deletes the endpoint's items created before `before`, oldest first, `chunk` per transaction. */
  async deleteBefore(endpoint: string, before: number, chunk = 500): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.db.transaction().execute(async (tx) => {
        const rows = await tx
          .selectFrom('crud_items')
          .select('seq')
          .where('endpoint', '=', endpoint)
          .where('created_at', '<', before)
          .orderBy('created_at')
          .limit(chunk)
          .execute();
        if (rows.length === 0) return 0;
        await tx
          .deleteFrom('crud_items')
          .where(
            'seq',
            'in',
            rows.map((r) => r.seq),
          )
          .execute();
        return rows.length;
      });
      total += n;
      if (n < chunk) return total;
      await yieldToRequests();
    }
  }

  /** Drops every item of the endpoint (the endpoint is being deleted). */
  async deleteEndpoint(tx: Transaction<Database>, endpoint: string): Promise<void> {
    await tx.deleteFrom('crud_items').where('endpoint', '=', endpoint).execute();
  }

  /** With `locks`: holds the endpoint's caps until the transaction ends (the module header). */
  private async lockCaps(tx: Transaction<Database>, endpoint: string): Promise<void> {
    if (this.locks) await lockForTransaction(tx, LOCK_SPACE.crud, endpoint, this.locks.timeoutMs);
  }

  private async exists(tx: Transaction<Database>, endpoint: string, collection: string, id: string) {
    const r = await tx
      .selectFrom('crud_items')
      .select('seq')
      .where('endpoint', '=', endpoint)
      .where('collection', '=', collection)
      .where('id', '=', id)
      .executeTakeFirst();
    return r !== undefined;
  }

  /** What the endpoint's collections hold, read from the (endpoint, created_at, size) index. */
  private async usage(
    tx: Transaction<Database>,
    endpoint: string,
  ): Promise<{ items: number; bytes: number }> {
    const r = await tx
      .selectFrom('crud_items')
      .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum<number | string | null>('size').as('bytes')])
      .where('endpoint', '=', endpoint)
      .executeTakeFirstOrThrow();
    return { items: Number(r.n), bytes: Number(r.bytes ?? 0) };
  }
}
