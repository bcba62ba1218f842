/**
 * Endpoint state (SPEC §4, §6): counters, strings/objects and lists, one row per endpoint, type and
 * key, the value as JSON text. Every change a request makes is one SQL statement on the row where it
 * lies (`value = value + ?`, a list appended to or cut in place), so that concurrent requests, on one
 * instance or several, never lose an update: no value is read, changed in JavaScript and written back.
 * Lists are kept as compact JSON text and changed as text (append) or with the dialect's JSON
 * functions that keep each element's text (pop), so that objects keep their key order.
 *
 * What a request shows of its changes (the counter's new value) is exact only if no other request of
 * the endpoint reads between its read and its write: locked() holds the endpoint for that span. With
 * `locks` (PostgreSQL shared by several instances) it is a transaction under the endpoint's advisory
 * lock, which every multi-statement change of the state takes first too (so that two of them never
 * wait on each other's rows); without (SQLite, or one instance), the caller's in-process lock does it
 * and locked() adds nothing.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { LOCK_SPACE, lockForTransaction, type AdvisoryLocks } from './advisory.js';
import type { Database } from './schema.js';
import type { Json, StateItem, StateOp, StateQuery, StateRef, StateType } from './types.js';

type Row = Selectable<Database['state']>;

/** More named items than this are read as the whole state (one query either way, and it is bounded). */
const MAX_NAMED = 200;

function itemOf(r: Row): StateItem {
  return {
    type: r.type as StateType,
    key: r.key,
    value: JSON.parse(r.value) as Json,
    lastModified: Number(r.updated_at),
  };
}

export class StateTable {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
    /** PostgreSQL shared by several instances: changes are held by the endpoint's advisory lock. */
    private readonly locks: AdvisoryLocks | undefined = undefined,
    /** Set on the table locked() hands out: `db` is a transaction that holds the endpoint's lock. */
    private readonly held = false,
  ) {}

  /**
   * Runs `fn` with the endpoint held against every other holder, on any instance: with `locks`, `fn`
   * gets a table bound to one transaction that holds the endpoint's advisory lock (committed when
   * `fn` resolves, rolled back when it throws); without, this table as it is.
   */
  async locked<T>(endpoint: string, fn: (table: StateTable) => Promise<T>): Promise<T> {
    const locks = this.locks;
    if (this.held || !locks) return fn(this);
    return this.db.transaction().execute(async (tx) => {
      await lockForTransaction(tx, LOCK_SPACE.state, endpoint, locks.timeoutMs);
      return fn(new StateTable(tx, this.dialect, locks, true));
    });
  }

  /** `fn` in one transaction; with `locks`, one that holds the endpoint's lock (locked()). */
  private changing<T>(endpoint: string, fn: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    if (this.held) return fn(this.db);
    if (this.locks) return this.locked(endpoint, (t) => fn(t.db));
    return this.db.transaction().execute(fn);
  }

  async list(endpoint: string): Promise<StateItem[]> {
    const rows = await this.db
      .selectFrom('state')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .orderBy('type')
      .orderBy('key')
      .execute();
    return rows.map(itemOf);
  }

  async page(endpoint: string, q: StateQuery): Promise<{ items: StateItem[]; total: number }> {
    let base = this.db.selectFrom('state').where('endpoint', '=', endpoint);
    if (q.type !== undefined) base = base.where('type', '=', q.type);
    const prefix = q.keyPrefix;
    // substr, not LIKE: a prefix holding `%` or `_` means itself.
    if (prefix !== undefined && prefix !== '')
      base = base.where(sql<string>`substr(key, 1, ${prefix.length})`, '=', prefix);
    const [rows, total] = await Promise.all([
      base.selectAll().orderBy('type').orderBy('key').limit(q.limit).offset(q.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(itemOf), total: Number(total.n) };
  }

  async get(endpoint: string, type: string, key: string): Promise<StateItem | undefined> {
    const r = await this.db
      .selectFrom('state')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .where('type', '=', type)
      .where('key', '=', key)
      .executeTakeFirst();
    return r && itemOf(r);
  }

  async count(endpoint: string): Promise<number> {
    const r = await this.db
      .selectFrom('state')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint', '=', endpoint)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async read(
    endpoint: string,
    refs: readonly StateRef[] | 'all',
  ): Promise<{ items: StateItem[]; count: number }> {
    if (refs !== 'all' && refs.length === 0) return { items: [], count: await this.count(endpoint) };
    let q = this.db.selectFrom('state').selectAll().where('endpoint', '=', endpoint);
    const named = refs !== 'all' && refs.length <= MAX_NAMED ? refs : undefined;
    if (named) q = q.where('key', 'in', [...new Set(named.map((r) => r.key))]);
    const [rows, count] = await Promise.all([q.execute(), this.count(endpoint)]);
    let items = rows.map(itemOf);
    if (named) {
      const wanted = new Set(named.map((r) => `${r.type}\0${r.key}`));
      items = items.filter((i) => wanted.has(`${i.type}\0${i.key}`));
    }
    return { items, count };
  }

  async put(endpoint: string, item: Omit<StateItem, 'lastModified'>, now = Date.now()): Promise<boolean> {
    const r = await this.putMany(endpoint, [item], now);
    return r.created === 1;
  }

  async putMany(
    endpoint: string,
    items: readonly Omit<StateItem, 'lastModified'>[],
    now: number,
  ): Promise<{ created: number; updated: number }> {
    return this.changing(endpoint, async (tx) => {
      let created = 0;
      let updated = 0;
      const seen = new Set<string>();
      for (const item of items) {
        const value = JSON.stringify(item.value);
        const r = await tx
          .updateTable('state')
          .set({ value, updated_at: now })
          .where('endpoint', '=', endpoint)
          .where('type', '=', item.type)
          .where('key', '=', item.key)
          .executeTakeFirst();
        const id = `${item.type}\0${item.key}`;
        const first = !seen.has(id);
        seen.add(id);
        if (Number(r.numUpdatedRows) > 0) {
          if (first) updated++;
          continue;
        }
        // On PostgreSQL a request's single-statement change (no lock) may have created the item since
        // the update found none: it is replaced all the same, not refused as a duplicate key.
        await tx
          .insertInto('state')
          .values({ endpoint, type: item.type, key: item.key, value, updated_at: now })
          .onConflict((oc) => oc.columns(['endpoint', 'type', 'key']).doUpdateSet({ value, updated_at: now }))
          .execute();
        created++;
      }
      return { created, updated };
    });
  }

  async delete(endpoint: string, type: string, key: string): Promise<boolean> {
    return (await this.deleteMany(endpoint, [{ type: type as StateType, key }])) > 0;
  }

  async deleteMany(endpoint: string, refs: readonly StateRef[]): Promise<number> {
    if (refs.length === 0) return 0;
    return this.changing(endpoint, async (tx) => {
      let n = 0;
      for (const ref of refs) {
        const r = await tx
          .deleteFrom('state')
          .where('endpoint', '=', endpoint)
          .where('type', '=', ref.type)
          .where('key', '=', ref.key)
          .executeTakeFirst();
        n += Number(r.numDeletedRows);
      }
      return n;
    });
  }

  async deleteAll(endpoint: string): Promise<number> {
    const all = async (db: Kysely<Database>): Promise<number> => {
      const r = await db.deleteFrom('state').where('endpoint', '=', endpoint).executeTakeFirst();
      return Number(r.numDeletedRows);
    };
    // On PostgreSQL the rows are locked one by one as they are found: under the endpoint's lock, so
    // that a request's changes, holding some of them, never wait for this statement nor it for them.
    return this.locks ? this.changing(endpoint, all) : all(this.db);
  }

  async apply(endpoint: string, ops: readonly StateOp[], now: number): Promise<void> {
    if (ops.length === 0) return;
    // One change needs no transaction: its statement is atomic by itself and locks one row (and it
    // is a round trip shorter).
    if (ops.length === 1) return this.applyOne(this.db, endpoint, ops[0]!, now);
    await this.changing(endpoint, async (tx) => {
      for (const op of ops) await this.applyOne(tx, endpoint, op, now);
    });
  }

  private async applyOne(db: Kysely<Database>, endpoint: string, op: StateOp, now: number): Promise<void> {
    const pg = this.dialect === 'postgres';
    switch (op.op) {
      case 'add': {
        const sum = pg
          ? sql<string>`(cast(state.value as bigint) + ${op.by})::text`
          : sql<string>`cast(cast(state.value as integer) + ${op.by} as text)`;
        await db
          .insertInto('state')
          .values({ endpoint, type: 'counter', key: op.key, value: String(op.by), updated_at: now })
          .onConflict((oc) =>
            oc.columns(['endpoint', 'type', 'key']).doUpdateSet({ value: sum, updated_at: now }),
          )
          .execute();
        return;
      }
      case 'set': {
        const value = JSON.stringify(op.value);
        await db
          .insertInto('state')
          .values({ endpoint, type: op.type, key: op.key, value, updated_at: now })
          .onConflict((oc) => oc.columns(['endpoint', 'type', 'key']).doUpdateSet({ value, updated_at: now }))
          .execute();
        return;
      }
      case 'delete':
        await db
          .deleteFrom('state')
          .where('endpoint', '=', endpoint)
          .where('type', '=', op.type)
          .where('key', '=', op.key)
          .execute();
        return;
      case 'push': {
        const element = JSON.stringify(op.value);
        const length = pg ? sql`json_array_length(state.value::json)` : sql`json_array_length(state.value)`;
        // The stored text is an array we wrote: `[]`, or `[…]` to which `,<element>]` is appended.
        const appended = sql<string>`case when state.value = '[]' then ${'[' + element + ']'} else substr(state.value, 1, length(state.value) - 1) || ${',' + element + ']'} end`;
        await db
          .insertInto('state')
          .values({ endpoint, type: 'list', key: op.key, value: `[${element}]`, updated_at: now })
          .onConflict((oc) =>
            oc
              .columns(['endpoint', 'type', 'key'])
              .doUpdateSet({ value: appended, updated_at: now })
              .where(sql<boolean>`${length} < ${op.maxLength}`)
              .where(sql<boolean>`length(state.value) + ${element.length + 1} <= ${op.maxChars}`),
          )
          .execute();
        return;
      }
      case 'pop': {
        // PostgreSQL's json type keeps each element's text; json_agg joins them again.
        const cut = pg
          ? sql<string>`coalesce((select json_agg(e order by i)::text from json_array_elements(state.value::json) with ordinality as t(e, i) where i < json_array_length(state.value::json)), '[]')`
          : sql<string>`json_remove(state.value, '$[#-1]')`;
        await db
          .updateTable('state')
          .set({ value: cut, updated_at: now })
          .where('endpoint', '=', endpoint)
          .where('type', '=', 'list')
          .where('key', '=', op.key)
          .where('value', '<>', '[]')
          .execute();
        return;
      }
    }
  }
}
