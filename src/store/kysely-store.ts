/**
 * The Store over Kysely: one implementation for both dialects. The few differences (regular
 * expressions, case-sensitive substring search, upserts) are chosen by `dialect` where they occur.
 */
import { Migrator, type Kysely } from 'kysely';
import { BlobTable } from './blob-table.js';
import { SpecTable } from './spec-table.js';
import { StateTable } from './state-table.js';
import { CrudTable } from './crud-table.js';
import { MtlsTable } from './mtls-table.js';
import { HistoryTable, type BulkHistoryInsert } from './history-table.js';
import { pruneHistoryRows } from './history-prune.js';
import { trimHistoryRows, type HistoryUsage } from './history-trim.js';
import type { Database } from './schema.js';
import { migrationProvider } from './migrations.js';
import {
  changeEndpointIn,
  configVersionOf,
  configVersions,
  domainsVersionOf,
  swapMetaIn,
} from './config-version.js';
import type { PgLeader } from './leader.js';
import type { AdvisoryLocks } from './advisory.js';
import type {
  ApiKeyRecord,
  BlobMeta,
  BlobQuota,
  BlobRefusal,
  BlobRecord,
  CrudCaps,
  CrudItem,
  CrudRefusal,
  EndpointChangeOptions,
  EndpointChangeWrite,
  EndpointRecord,
  CalloutRecord,
  HistoryEntry,
  HistoryEstimate,
  HistoryFile,
  HistoryFilter,
  HistoryTrim,
  JsonObject,
  LockedState,
  MtlsCaRecord,
  MtlsCertRecord,
  NewHistoryEntry,
  Page,
  RuleRecord,
  SpecInfo,
  SpecJobRecord,
  SpecRecord,
  StateItem,
  StateOp,
  StateQuery,
  StateRef,
  Store,
  TotpRecord,
} from './types.js';

export class KyselyStore implements Store {
  /** Removals of history ended on this store (trimHistory). */
  private removals = 0;
  /** The store a transaction-bound one (changeEndpoint) counts its removals on. */
  private parent: KyselyStore | undefined;
  private readonly history: HistoryTable;
  private readonly blobs: BlobTable;
  private readonly specs: SpecTable;
  private readonly state: StateTable;
  private readonly crud: CrudTable;
  private readonly mtls: MtlsTable;
  /** What close() ends after the database: a lock on the data folder, the leader's connection. */
  private readonly closers: (() => Promise<void> | void)[] = [];
  /** Leadership among instances (PostgreSQL); without one this store's instance is the only one. */
  private leader: PgLeader | undefined;

  constructor(
    readonly db: Kysely<Database>,
    readonly dialect: 'sqlite' | 'postgres',
    /** A faster history insert for the hot path, where the driver offers one (SQLite prepared statements). */
    bulkInsert?: BulkHistoryInsert,
    /** Called by `close()` before the database is: stops what the driver started beside it. */
    private readonly beforeClose?: () => Promise<void> | undefined,
    /** Where the per-endpoint caps are kept, when not on `db` (SQLite: the history worker's connection). */
    private readonly trimElsewhere?: (
      endpoint: string,
      caps: { maxEntries: number; maxBytes: number },
      known: HistoryUsage | undefined,
    ) => Promise<HistoryUsage & { deleted: number }>,
    /**
     * PostgreSQL shared by several instances (REDIS_URL set): state and CRUD writes hold their
     * endpoint's advisory lock (state-table.ts, crud-table.ts). One instance needs none.
     */
    instanceLocks?: AdvisoryLocks,
  ) {
    this.history = new HistoryTable(db, dialect, bulkInsert);
    this.blobs = new BlobTable(db, dialect);
    this.specs = new SpecTable(db);
    this.state = new StateTable(db, dialect, instanceLocks);
    this.crud = new CrudTable(db, dialect, instanceLocks);
    this.mtls = new MtlsTable(db, dialect);
  }

  /** Applies every pending migration; throws with the failing migration's error. */
  async migrate(): Promise<void> {
    const migrator = new Migrator({ db: this.db, provider: migrationProvider(this.dialect) });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
    // The built-in echo endpoint exists in every database, so its history and keys work like any other's.
    await this.createEndpoint({ name: 'echo', createdAt: Date.now(), settings: { builtIn: true } });
  }

  async close(): Promise<void> {
    await this.beforeClose?.();
    await this.leader?.close();
    await this.db.destroy();
    for (const c of this.closers) await c();
  }

  /** Adds something close() ends once the database is closed. */
  onClose(fn: () => Promise<void> | void): void {
    this.closers.push(fn);
  }

  /** Leadership among the instances on this database (openPostgresStore). */
  useLeader(leader: PgLeader): void {
    this.leader = leader;
  }

  leads(): Promise<boolean> {
    return this.leader ? this.leader.leads() : Promise.resolve(true);
  }

  // ---- meta and keys ----

  async getMeta(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.db
      .insertInto('meta')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }

  async claimMeta(key: string, value: string): Promise<string> {
    await this.db
      .insertInto('meta')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const stored = await this.getMeta(key);
    if (stored === undefined) throw new Error(`meta key ${key} vanished after it was claimed`);
    return stored;
  }

  swapMeta(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    return swapMetaIn(this.db, key, expected, next);
  }

  // ---- configuration versions (config-version.ts) ----

  changeEndpoint<T>(
    endpoint: string,
    write: (tx: Store) => Promise<T>,
    opts?: EndpointChangeOptions<T>,
  ): Promise<EndpointChangeWrite<T>> {
    return changeEndpointIn(
      this.db,
      this.dialect,
      endpoint,
      (tx) => {
        const bound = new KyselyStore(tx, this.dialect);
        bound.parent = this;
        return write(bound);
      },
      opts,
    );
  }

  getConfigVersion(endpoint: string): Promise<number | undefined> {
    return configVersionOf(this.db, endpoint);
  }

  listConfigVersions(): Promise<{ endpoint: string; version: number }[]> {
    return configVersions(this.db);
  }

  getDomainsVersion(): Promise<number> {
    return domainsVersionOf(this.db);
  }

  async createApiKey(rec: ApiKeyRecord): Promise<void> {
    await this.db
      .insertInto('api_keys')
      .values({ id: rec.id, hash: rec.hash, endpoint: rec.endpoint, created_at: rec.createdAt })
      .execute();
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const r = await this.db.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
    return r && { id: r.id, hash: r.hash, endpoint: r.endpoint, createdAt: Number(r.created_at) };
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      hash: r.hash,
      endpoint: r.endpoint,
      createdAt: Number(r.created_at),
    }));
  }

  async deleteApiKey(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  // ---- endpoints ----

  async createEndpoint(rec: EndpointRecord): Promise<boolean> {
    const r = await this.db
      .insertInto('endpoints')
      .values({ name: rec.name, created_at: rec.createdAt, settings: JSON.stringify(rec.settings) })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async getEndpoint(name: string): Promise<EndpointRecord | undefined> {
    const r = await this.db.selectFrom('endpoints').selectAll().where('name', '=', name).executeTakeFirst();
    return (
      r && {
        name: r.name,
        createdAt: Number(r.created_at),
        settings: JSON.parse(r.settings) as JsonObject,
        configVersion: Number(r.config_version),
      }
    );
  }

  async listEndpoints(): Promise<EndpointRecord[]> {
    const rows = await this.db
      .selectFrom('endpoints')
      .select(['name', 'created_at', 'settings'])
      .orderBy('name')
      .execute();
    return rows.map((r) => ({
      name: r.name,
      createdAt: Number(r.created_at),
      settings: JSON.parse(r.settings) as JsonObject,
    }));
  }

  async deleteEndpoint(name: string): Promise<boolean> {
    return this.removing(
      this.db.transaction().execute(async (tx) => {
        const r = await tx.deleteFrom('endpoints').where('name', '=', name).executeTakeFirst();
        if (Number(r.numDeletedRows) === 0) return false;
        await tx.deleteFrom('rules').where('endpoint', '=', name).execute();
        await this.history.deleteEndpointHistory(tx, name);
        await tx.deleteFrom('state').where('endpoint', '=', name).execute();
        await tx.deleteFrom('blobs').where('endpoint', '=', name).execute();
        await SpecTable.deleteEndpoint(tx, name);
        await this.crud.deleteEndpoint(tx, name);
        await MtlsTable.deleteEndpoint(tx, name);
        await tx.deleteFrom('api_keys').where('endpoint', '=', name).execute();
        return true;
      }),
    );
  }

  async updateEndpointSettings(name: string, settings: JsonObject): Promise<boolean> {
    const r = await this.db
      .updateTable('endpoints')
      .set({ settings: JSON.stringify(settings) })
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  // ---- rules ----

  async listRules(endpoint: string): Promise<RuleRecord[]> {
    const rows = await this.db
      .selectFrom('rules')
      .select(['id', 'data'])
      .where('endpoint', '=', endpoint)
      .orderBy('position')
      .execute();
    return rows.map((r) => ({ id: r.id, data: JSON.parse(r.data) as JsonObject }));
  }

  async getRule(endpoint: string, id: string): Promise<RuleRecord | undefined> {
    const r = await this.db
      .selectFrom('rules')
      .select(['id', 'data'])
      .where('endpoint', '=', endpoint)
      .where('id', '=', id)
      .executeTakeFirst();
    return r && { id: r.id, data: JSON.parse(r.data) as JsonObject };
  }

  async countRules(endpoint: string): Promise<number> {
    const r = await this.db
      .selectFrom('rules')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('endpoint', '=', endpoint)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async appendRule(endpoint: string, rule: RuleRecord): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const r = await tx
        .selectFrom('rules')
        .select((eb) => eb.fn.max('position').as('max'))
        .where('endpoint', '=', endpoint)
        .executeTakeFirst();
      const position = r?.max === null || r?.max === undefined ? 0 : Number(r.max) + 1;
      await tx
        .insertInto('rules')
        .values({ id: rule.id, endpoint, position, data: JSON.stringify(rule.data) })
        .execute();
    });
  }

  async updateRule(endpoint: string, rule: RuleRecord): Promise<boolean> {
    const r = await this.db
      .updateTable('rules')
      .set({ data: JSON.stringify(rule.data) })
      .where('endpoint', '=', endpoint)
      .where('id', '=', rule.id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async deleteRule(endpoint: string, id: string): Promise<boolean> {
    // Positions only order the rules; a gap left by a deletion keeps the others' relative order.
    const r = await this.db
      .deleteFrom('rules')
      .where('endpoint', '=', endpoint)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async deleteAllRules(endpoint: string): Promise<number> {
    const r = await this.db.deleteFrom('rules').where('endpoint', '=', endpoint).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async replaceRules(endpoint: string, rules: RuleRecord[]): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('rules').where('endpoint', '=', endpoint).execute();
      if (rules.length > 0) {
        await tx
          .insertInto('rules')
          .values(rules.map((r, i) => ({ id: r.id, endpoint, position: i, data: JSON.stringify(r.data) })))
          .execute();
      }
      return rules.length;
    });
  }

  putBlob(blob: BlobRecord, quota?: BlobQuota): Promise<boolean | BlobRefusal> {
    return this.blobs.put(blob, quota);
  }

  getBlob(endpoint: string, name: string): Promise<BlobRecord | undefined> {
    return this.blobs.get(endpoint, name);
  }

  listBlobs(endpoint: string): Promise<BlobMeta[]> {
    return this.blobs.list(endpoint);
  }

  deleteBlob(endpoint: string, name: string): Promise<boolean> {
    return this.blobs.delete(endpoint, name);
  }

  putSpec(spec: SpecRecord): Promise<void> {
    return this.specs.put(spec);
  }

  getSpec(endpoint: string): Promise<SpecRecord | undefined> {
    return this.specs.get(endpoint);
  }

  getSpecInfo(endpoint: string): Promise<SpecInfo | undefined> {
    return this.specs.info(endpoint);
  }

  deleteSpec(endpoint: string): Promise<boolean> {
    return this.specs.delete(endpoint);
  }

  createSpecJob(job: SpecJobRecord, keep?: number): Promise<void> {
    return this.specs.createJob(job, keep);
  }

  updateSpecJob(id: string, patch: Parameters<Store['updateSpecJob']>[1]): Promise<boolean> {
    return this.specs.updateJob(id, patch);
  }

  getSpecJob(endpoint: string, id: string): Promise<SpecJobRecord | undefined> {
    return this.specs.getJob(endpoint, id);
  }

  async reorderRules(endpoint: string, order: string[]): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      const rows = await tx
        .selectFrom('rules')
        .select('id')
        .where('endpoint', '=', endpoint)
        .orderBy('position')
        .execute();
      const known = new Set(rows.map((r) => r.id));
      const moved = [...new Set(order)].filter((id) => known.has(id));
      const movedSet = new Set(moved);
      const final = [...moved, ...rows.map((r) => r.id).filter((id) => !movedSet.has(id))];
      for (let i = 0; i < final.length; i++) {
        await tx.updateTable('rules').set({ position: i }).where('id', '=', final[i]!).execute();
      }
      return moved.length;
    });
  }

  // ---- history ----

  insertHistory(entries: NewHistoryEntry[]): Promise<void> {
    return this.history.insert(entries);
  }

  listHistory(
    endpoint: string,
    filter: HistoryFilter,
    limit: number,
    cursor?: string,
  ): Promise<Page<HistoryEntry>> {
    return this.history.list(endpoint, filter, limit, cursor);
  }

  countHistory(endpoint: string, filter: HistoryFilter): Promise<number> {
    return this.history.count(endpoint, filter);
  }

  countHistoryByEndpoint(): Promise<Map<string, number>> {
    return this.history.countAll();
  }

  getHistory(endpoint: string, id: string): Promise<HistoryEntry | undefined> {
    return this.history.get(endpoint, id);
  }

  deleteHistoryEntry(endpoint: string, id: string): Promise<boolean> {
    return this.removing(this.history.deleteOne(endpoint, id));
  }

  deleteHistory(endpoint: string, filter: HistoryFilter): Promise<number> {
    return this.removing(this.history.delete(endpoint, filter));
  }

  purgeHistory(limit: number, now?: number): Promise<number> {
    return this.history.purge(limit, now);
  }

  historyPurgeBacklog(): Promise<number> {
    return this.history.purgeBacklog();
  }

  getHistoryFile(endpoint: string, requestId: string, fieldName: string): Promise<HistoryFile | undefined> {
    return this.history.getFile(endpoint, requestId, fieldName);
  }

  setHistoryCallout(endpoint: string, id: string, callout: CalloutRecord): Promise<boolean> {
    return this.history.setCallout(endpoint, id, callout);
  }

  pruneHistory(before: number, maxPerEndpoint: number, chunk?: number): Promise<number> {
    return this.removing(
      pruneHistoryRows(this.db, (ep) => this.history.count(ep, {}), before, maxPerEndpoint, chunk),
    );
  }

  async trimHistory(
    endpoint: string,
    caps: { maxEntries: number; maxBytes: number },
    estimate?: HistoryEstimate,
  ): Promise<HistoryTrim> {
    // Only SQLite's file is this process's alone: on PostgreSQL another instance may have removed
    // entries since, and an estimate too high would drop entries the caps allow.
    const removals = this.dialect === 'sqlite' ? this.removals : undefined;
    const known =
      estimate && estimate.removals === removals
        ? { entries: estimate.entries, bytes: estimate.bytes }
        : undefined;
    const r = this.trimElsewhere
      ? await this.trimElsewhere(endpoint, caps, known)
      : await trimHistoryRows(this.db, endpoint, caps, { known });
    return { ...r, ...(removals !== undefined && { removals }), ...(known && { estimated: true }) };
  }

  /**
   * Counts a removal of history once it has ended, whether it succeeded or not: a trim's count
   * read before that is not trusted afterwards (trimHistory).
   */
  private async removing<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } finally {
      (this.parent ?? this).removals++;
    }
  }

  // ---- state (state-table.ts) ----

  listState(endpoint: string): Promise<StateItem[]> {
    return this.state.list(endpoint);
  }

  getState(endpoint: string, type: string, key: string): Promise<StateItem | undefined> {
    return this.state.get(endpoint, type, key);
  }

  putState(endpoint: string, item: Omit<StateItem, 'lastModified'>): Promise<boolean> {
    return this.state.put(endpoint, item);
  }

  deleteState(endpoint: string, type: string, key: string): Promise<boolean> {
    return this.state.delete(endpoint, type, key);
  }

  deleteAllState(endpoint: string): Promise<number> {
    return this.state.deleteAll(endpoint);
  }

  pageState(endpoint: string, q: StateQuery): Promise<{ items: StateItem[]; total: number }> {
    return this.state.page(endpoint, q);
  }

  readState(
    endpoint: string,
    refs: readonly StateRef[] | 'all',
  ): Promise<{ items: StateItem[]; count: number }> {
    return this.state.read(endpoint, refs);
  }

  applyState(endpoint: string, ops: readonly StateOp[], now: number): Promise<void> {
    return this.state.apply(endpoint, ops, now);
  }

  withStateLock<T>(endpoint: string, fn: (state: LockedState) => Promise<T>): Promise<T> {
    return this.state.locked(endpoint, (t) =>
      fn({
        read: (refs) => t.read(endpoint, refs),
        apply: (ops, now) => t.apply(endpoint, ops, now),
        putMany: (items, now) => t.putMany(endpoint, items, now),
      }),
    );
  }

  putStateItems(
    endpoint: string,
    items: readonly Omit<StateItem, 'lastModified'>[],
    now: number,
  ): Promise<{ created: number; updated: number }> {
    return this.state.putMany(endpoint, items, now);
  }

  deleteStateItems(endpoint: string, refs: readonly StateRef[]): Promise<number> {
    return this.state.deleteMany(endpoint, refs);
  }

  countState(endpoint: string): Promise<number> {
    return this.state.count(endpoint);
  }

  // ---- CRUD collections (issue 13 part 3) ----

  listCrudItems(
    endpoint: string,
    collection: string,
    limit: number,
    offset: number,
  ): Promise<{ items: CrudItem[]; total: number }> {
    return this.crud.list(endpoint, collection, limit, offset);
  }

  listCrudPage(
    endpoint: string,
    collection: string,
    limit: number,
    offset: number,
    maxBytes: number,
  ): Promise<{ texts: string[]; bytes: number; total: number }> {
    return this.crud.page(endpoint, collection, limit, offset, maxBytes);
  }

  getCrudItem(endpoint: string, collection: string, id: string): Promise<CrudItem | undefined> {
    return this.crud.get(endpoint, collection, id);
  }

  insertCrudItem(
    endpoint: string,
    collection: string,
    item: CrudItem,
    caps: CrudCaps,
  ): Promise<{ ok: true } | { ok: false; why: CrudRefusal }> {
    return this.crud.insert(endpoint, collection, item, caps);
  }

  updateCrudItem(
    endpoint: string,
    collection: string,
    id: string,
    change: (old: JsonObject) => JsonObject,
    at: number,
    caps: CrudCaps,
  ): Promise<{ ok: true; item: CrudItem } | { ok: false; why: CrudRefusal } | undefined> {
    return this.crud.update(endpoint, collection, id, change, at, caps);
  }

  deleteCrudItem(endpoint: string, collection: string, id: string): Promise<CrudItem | undefined> {
    return this.crud.delete(endpoint, collection, id);
  }

  deleteCrudItemsBefore(endpoint: string, before: number, chunk?: number): Promise<number> {
    return this.crud.deleteBefore(endpoint, before, chunk);
  }

  // ---- TOTP ----

  async insertTotp(rec: TotpRecord): Promise<void> {
    await this.db
      .insertInto('totp_secrets')
      .values({
        id: rec.id,
        issuer: rec.issuer,
        algorithm: rec.algorithm,
        digits: rec.digits,
        period: rec.period,
        secret_enc: rec.secretEnc,
        created_at: rec.createdAt,
        last_used_at: rec.lastUsedAt,
      })
      .execute();
  }

  async getTotp(id: string): Promise<TotpRecord | undefined> {
    const r = await this.db.selectFrom('totp_secrets').selectAll().where('id', '=', id).executeTakeFirst();
    return (
      r && {
        id: r.id,
        issuer: r.issuer,
        algorithm: r.algorithm as TotpRecord['algorithm'],
        digits: Number(r.digits),
        period: Number(r.period),
        secretEnc: r.secret_enc,
        createdAt: Number(r.created_at),
        lastUsedAt: Number(r.last_used_at),
      }
    );
  }

  async touchTotp(id: string, at: number): Promise<void> {
    await this.db.updateTable('totp_secrets').set({ last_used_at: at }).where('id', '=', id).execute();
  }

  async purgeTotp(before: number): Promise<number> {
    const r = await this.db.deleteFrom('totp_secrets').where('last_used_at', '<', before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  // ---- mTLS (mtls-table.ts) ----

  getMtlsCa(endpoint: string): Promise<MtlsCaRecord | undefined> {
    return this.mtls.getCa(endpoint);
  }

  putMtlsCaIfAbsent(ca: MtlsCaRecord): Promise<MtlsCaRecord> {
    return this.mtls.putCaIfAbsent(ca);
  }

  listMtlsCerts(endpoint: string): Promise<MtlsCertRecord[]> {
    return this.mtls.list(endpoint);
  }

  insertMtlsCert(cert: MtlsCertRecord, max: number): Promise<boolean> {
    return this.mtls.insert(cert, max);
  }

  deleteMtlsCert(endpoint: string, id: string): Promise<boolean> {
    return this.mtls.delete(endpoint, id);
  }
}
