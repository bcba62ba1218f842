/**
 * Configuration versions (SPEC §8): every change of an endpoint moves `endpoints.config_version` in
 * the change's own transaction, and a change that may claim or release a custom domain moves the
 * domains' version (`meta.domains_version`) too. Instances compare the version an entry was built
 * from with the shared one (src/cluster/version-fence.ts), so a version must only grow: it is the
 * next value of one counter shared by all endpoints (a sequence on PostgreSQL, a `meta` row on
 * SQLite), so an endpoint deleted and made again never takes a version it had before.
 *
 * Ordering: the endpoint's row is locked before its version moves, so one endpoint's changes commit
 * in the order of their versions; domain claims take the `domains_version` row's lock before their
 * check, so two claims of one domain on two instances cannot both pass it.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import type { EndpointChangeOptions, EndpointChangeWrite } from './types.js';

type Dialect = 'sqlite' | 'postgres';

/** A write that changed nothing: thrown to roll the version back, caught below. */
class Unchanged<T> extends Error {
  constructor(readonly result: T) {
    super('unchanged');
  }
}

/**
 * `tx` seen as a database whose `transaction()` runs in `tx` itself: the store's own transactions
 * (an append's read-then-insert, a blob quota's check) join the change's, as SQL has no nested ones.
 */
export function joinedTransaction(tx: Transaction<Database>): Kysely<Database> {
  return new Proxy(tx, {
    get(target, prop) {
      if (prop === 'transaction')
        return () => ({
          execute: <T>(fn: (t: Transaction<Database>) => Promise<T>): Promise<T> => fn(target),
        });
      // Kysely keeps its state in private fields: its methods run on the transaction itself.
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** Moves `endpoint`'s version to the counter's next value; undefined when there is no such row. */
async function bump(
  tx: Transaction<Database>,
  dialect: Dialect,
  endpoint: string,
): Promise<number | undefined> {
  const row = tx.selectFrom('endpoints').select('name').where('name', '=', endpoint);
  if (!(await (dialect === 'postgres' ? row.forUpdate() : row).executeTakeFirst())) return undefined;
  const next =
    dialect === 'postgres'
      ? sql<number>`nextval('endpoint_config_versions')`
      : sql<number>`(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'config_version_counter')`;
  if (dialect === 'sqlite')
    await sql`UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
      WHERE key = 'config_version_counter'`.execute(tx);
  const r = await tx
    .updateTable('endpoints')
    .set({ config_version: next })
    .where('name', '=', endpoint)
    .returning('config_version')
    .executeTakeFirstOrThrow();
  return Number(r.config_version);
}

/** Moves the domains' version on by one (its row is locked by the claim already). */
async function bumpDomains(tx: Transaction<Database>): Promise<number> {
  const r = await sql<{ value: string }>`UPDATE meta SET value = CAST(CAST(value AS BIGINT) + 1 AS TEXT)
    WHERE key = 'domains_version' RETURNING value`.execute(tx);
  return Number(r.rows[0]!.value);
}

/** Serialises domain claims: on PostgreSQL the `domains_version` row's lock, held until commit. */
async function lockClaims(tx: Transaction<Database>, dialect: Dialect): Promise<void> {
  // SQLite runs one write transaction at a time, and one instance uses it.
  if (dialect === 'postgres')
    await tx.selectFrom('meta').select('value').where('key', '=', 'domains_version').forUpdate().execute();
}

/** Store.changeEndpoint over `db`; `write` gets the transaction, joined (joinedTransaction). */
export async function changeEndpointIn<T>(
  db: Kysely<Database>,
  dialect: Dialect,
  endpoint: string,
  write: (tx: Kysely<Database>) => Promise<T>,
  opts: EndpointChangeOptions<T> = {},
): Promise<EndpointChangeWrite<T>> {
  // What failed inside the transaction: SQLite ends a transaction itself on some errors (SQLITE_FULL),
  // and the ROLLBACK that follows then fails with "no transaction is active", which must not hide it.
  let failure: { err: unknown } | undefined;
  try {
    return await db.transaction().execute(async (tx) => {
      try {
        // The lock first: the version order is the commit order. A row the write makes (creation)
        // gets its version after the write.
        let version = await bump(tx, dialect, endpoint);
        if (opts.domains === true) await lockClaims(tx, dialect);
        const result = await write(joinedTransaction(tx));
        if (opts.unchanged?.(result) === true) throw new Unchanged(result);
        version ??= await bump(tx, dialect, endpoint);
        if (opts.domains !== true) return { result, version };
        return { result, version, domainsVersion: await bumpDomains(tx) };
      } catch (err) {
        failure = { err };
        throw err;
      }
    });
  } catch (err) {
    const cause = failure !== undefined ? failure.err : err;
    if (cause instanceof Unchanged) return { result: cause.result as T, version: undefined };
    throw cause;
  }
}

export async function configVersionOf(db: Kysely<Database>, endpoint: string): Promise<number | undefined> {
  const r = await db
    .selectFrom('endpoints')
    .select('config_version')
    .where('name', '=', endpoint)
    .executeTakeFirst();
  return r && Number(r.config_version);
}

export async function configVersions(db: Kysely<Database>): Promise<{ endpoint: string; version: number }[]> {
  const rows = await db.selectFrom('endpoints').select(['name', 'config_version']).execute();
  return rows.map((r) => ({ endpoint: r.name, version: Number(r.config_version) }));
}

export async function domainsVersionOf(db: Kysely<Database>): Promise<number> {
  const r = await db
    .selectFrom('meta')
    .select('value')
    .where('key', '=', 'domains_version')
    .executeTakeFirst();
  return r ? Number(r.value) : 0;
}

/** Store.swapMeta. */
export async function swapMetaIn(
  db: Kysely<Database>,
  key: string,
  expected: string | undefined,
  next: string | undefined,
): Promise<boolean> {
  if (expected === undefined) {
    if (next === undefined) return false;
    const r = await db
      .insertInto('meta')
      .values({ key, value: next })
      .onConflict((oc) => oc.column('key').doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  if (next === undefined) {
    const r = await db
      .deleteFrom('meta')
      .where('key', '=', key)
      .where('value', '=', expected)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
  const r = await db
    .updateTable('meta')
    .set({ value: next })
    .where('key', '=', key)
    .where('value', '=', expected)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
