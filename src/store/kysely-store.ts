/**
 * The Store over Kysely: one implementation for both dialects. The few differences (regular
 * expressions, case-sensitive substring search, upserts) are chosen by `dialect` where they occur.
 */
import { sql, Migrator, type Kysely, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';
import { migrationProvider } from './migrations.js';
import type {
  ApiKeyRecord,
  EndpointRecord,
  HistoryEntry,
  HistoryFile,
  HistoryFilter,
  Json,
  JsonObject,
  NewHistoryEntry,
  Page,
  RuleRecord,
  StateItem,
  Store,
  TotpRecord,
  Behavior,
} from './types.js';

export type RequestRow = Database['requests'];

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
    responseHeaders: JSON.parse(r.response_headers) as Record<string, string>,
    responseBody: r.response_body,
    responseBodyTruncated: Number(r.response_body_truncated) === 1,
    files: JSON.parse(r.files) as HistoryEntry['files'],
    problems: JSON.parse(r.problems) as string[],
  };
}

function toRow(e: HistoryEntry): RequestRow {
  return {
    id: e.id,
    endpoint: e.endpoint,
    created_at: e.createdAt,
    method: e.method,
    path: e.path,
    ip: e.ip,
    status: e.status,
    behavior: e.behavior,
    rule_matched: e.ruleMatched ? 1 : 0,
    rule_id: e.ruleId,
    duration_ms: e.durationMs,
    request_headers: JSON.stringify(e.requestHeaders),
    request_body: e.requestBody,
    request_body_truncated: e.requestBodyTruncated ? 1 : 0,
    response_headers: JSON.stringify(e.responseHeaders),
    response_body: e.responseBody,
    response_body_truncated: e.responseBodyTruncated ? 1 : 0,
    files: JSON.stringify(e.files),
    problems: JSON.stringify(e.problems),
  };
}

export type FileRow = Omit<Database['request_files'], 'seq'>;

/** Writes history rows and their files in one transaction, synchronously. */
export type BulkHistoryInsert = (rows: RequestRow[], files: FileRow[]) => void;

function fileRow(endpoint: string, f: HistoryFile): FileRow {
  return {
    request_id: f.requestId,
    endpoint,
    field_name: f.fieldName,
    file_name: f.fileName,
    content_type: f.contentType,
    size: f.size,
    data: f.data,
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

export class KyselyStore implements Store {
  constructor(
    readonly db: Kysely<Database>,
    readonly dialect: 'sqlite' | 'postgres',
    /** A faster history insert for the hot path, where the driver offers one (SQLite prepared statements). */
    private readonly bulkInsert?: BulkHistoryInsert,
  ) {}

  /** Applies every pending migration; throws with the failing migration's error. */
  async migrate(): Promise<void> {
    const migrator = new Migrator({ db: this.db, provider: migrationProvider(this.dialect) });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
    // The built-in echo endpoint exists in every database, so its history and keys work like any other's.
    await this.createEndpoint({ name: 'echo', createdAt: Date.now(), settings: { builtIn: true } });
  }

  async close(): Promise<void> {
    await this.db.destroy();
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
      r && { name: r.name, createdAt: Number(r.created_at), settings: JSON.parse(r.settings) as JsonObject }
    );
  }

  async listEndpoints(): Promise<EndpointRecord[]> {
    const rows = await this.db.selectFrom('endpoints').selectAll().orderBy('name').execute();
    return rows.map((r) => ({
      name: r.name,
      createdAt: Number(r.created_at),
      settings: JSON.parse(r.settings) as JsonObject,
    }));
  }

  async deleteEndpoint(name: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx.deleteFrom('endpoints').where('name', '=', name).executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) return false;
      await tx.deleteFrom('rules').where('endpoint', '=', name).execute();
      await tx.deleteFrom('request_files').where('endpoint', '=', name).execute();
      await tx.deleteFrom('requests').where('endpoint', '=', name).execute();
      await tx.deleteFrom('state').where('endpoint', '=', name).execute();
      await tx.deleteFrom('api_keys').where('endpoint', '=', name).execute();
      return true;
    });
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

  async insertHistory(entries: NewHistoryEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (this.bulkInsert) {
      this.bulkInsert(
        entries.map((e) => toRow(e.entry)),
        entries.flatMap((e) => e.files.map((f) => fileRow(e.entry.endpoint, f))),
      );
      return;
    }
    await this.db.transaction().execute(async (tx) => {
      // Chunked to stay under SQLite's bound-parameter limit.
      for (let i = 0; i < entries.length; i += 200) {
        const chunk = entries.slice(i, i + 200);
        await tx
          .insertInto('requests')
          .values(chunk.map((e) => toRow(e.entry)))
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
      }
      const files = entries.flatMap((e) => e.files.map((f) => fileRow(e.entry.endpoint, f)));
      for (let i = 0; i < files.length; i += 100) {
        await tx
          .insertInto('request_files')
          .values(files.slice(i, i + 100))
          .execute();
      }
    });
  }

  private applyFilter<O>(
    q: SelectQueryBuilder<Database, 'requests', O>,
    endpoint: string,
    f: HistoryFilter,
  ): SelectQueryBuilder<Database, 'requests', O> {
    return q.where((eb) => this.filterExpr(eb, endpoint, f));
  }

  private filterExpr(eb: ExpressionBuilder<Database, 'requests'>, endpoint: string, f: HistoryFilter) {
    const conds = [eb('endpoint', '=', endpoint)];
    if (f.dateFrom !== undefined) conds.push(eb('created_at', '>=', f.dateFrom));
    if (f.dateTo !== undefined) conds.push(eb('created_at', '<=', f.dateTo));
    if (f.method !== undefined) conds.push(eb('method', '=', f.method.toUpperCase()));
    if (f.status !== undefined) conds.push(eb('status', '=', f.status));
    if (f.behavior !== undefined) conds.push(eb('behavior', '=', f.behavior));
    if (f.ruleMatched !== undefined) conds.push(eb('rule_matched', '=', f.ruleMatched ? 1 : 0));
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
    return eb.and(conds);
  }

  /** Case-sensitive substring test, the same on both dialects. */
  private contains(
    eb: ExpressionBuilder<Database, 'requests'>,
    col: 'path' | 'request_body' | 'response_body',
    text: string,
  ) {
    const fn = this.dialect === 'postgres' ? 'strpos' : 'instr';
    return eb(eb.fn<number>(fn, [eb.ref(col), eb.val(text)]), '>', 0);
  }

  async listHistory(
    endpoint: string,
    filter: HistoryFilter,
    limit: number,
    cursor?: string,
  ): Promise<Page<HistoryEntry>> {
    let q = this.applyFilter(this.db.selectFrom('requests').selectAll(), endpoint, filter);
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

  async countHistory(endpoint: string, filter: HistoryFilter): Promise<number> {
    const r = await this.applyFilter(
      this.db.selectFrom('requests').select((eb) => eb.fn.countAll().as('n')),
      endpoint,
      filter,
    ).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async getHistory(endpoint: string, id: string): Promise<HistoryEntry | undefined> {
    const r = await this.db
      .selectFrom('requests')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .where('id', '=', id)
      .executeTakeFirst();
    return r && toEntry(r);
  }

  async deleteHistoryEntry(endpoint: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
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

  async deleteHistory(endpoint: string, filter: HistoryFilter): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      // Driven from the (few) files, each probing its entry by primary key: an `IN (SELECT id …)`
      // made SQLite probe the files index once per matching entry (~1 s for 100k entries).
      // Unqualified columns in the filter resolve to `requests`, the innermost scope.
      await tx
        .deleteFrom('request_files')
        .where('endpoint', '=', endpoint)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('requests')
              .select(sql.lit(1).as('one'))
              .whereRef('requests.id', '=', 'request_files.request_id')
              .where((w) =>
                this.filterExpr(w as unknown as ExpressionBuilder<Database, 'requests'>, endpoint, filter),
              ),
          ),
        )
        .execute();
      const r = await tx
        .deleteFrom('requests')
        .where((eb) => this.filterExpr(eb, endpoint, filter))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    });
  }

  async getHistoryFile(
    endpoint: string,
    requestId: string,
    fieldName: string,
  ): Promise<HistoryFile | undefined> {
    const r = await this.db
      .selectFrom('request_files')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .where('request_id', '=', requestId)
      .where('field_name', '=', fieldName)
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

  async pruneHistory(before: number, maxPerEndpoint: number): Promise<number> {
    let total = await this.deleteOlder(undefined, before);
    const counts = await this.db
      .selectFrom('requests')
      .select(['endpoint', (eb) => eb.fn.countAll().as('n')])
      .groupBy('endpoint')
      .execute();
    for (const c of counts) {
      if (Number(c.n) <= maxPerEndpoint) continue;
      const edge = await this.db
        .selectFrom('requests')
        .select('created_at')
        .where('endpoint', '=', c.endpoint)
        .orderBy('created_at', 'desc')
        .offset(maxPerEndpoint)
        .limit(1)
        .executeTakeFirst();
      if (edge) total += await this.deleteOlder(c.endpoint, Number(edge.created_at) + 1);
    }
    return total;
  }

  private async deleteOlder(endpoint: string | undefined, before: number): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      let files = tx.deleteFrom('request_files').where('request_id', 'in', (eb) => {
        let s = eb.selectFrom('requests').select('id').where('created_at', '<', before);
        if (endpoint !== undefined) s = s.where('endpoint', '=', endpoint);
        return s;
      });
      if (endpoint !== undefined) files = files.where('endpoint', '=', endpoint);
      await files.execute();
      let q = tx.deleteFrom('requests').where('created_at', '<', before);
      if (endpoint !== undefined) q = q.where('endpoint', '=', endpoint);
      const r = await q.executeTakeFirst();
      return Number(r.numDeletedRows);
    });
  }

  // ---- state ----

  async listState(endpoint: string): Promise<StateItem[]> {
    const rows = await this.db
      .selectFrom('state')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .orderBy('type')
      .orderBy('key')
      .execute();
    return rows.map((r) => ({
      type: r.type as StateItem['type'],
      key: r.key,
      value: JSON.parse(r.value) as Json,
      lastModified: Number(r.updated_at),
    }));
  }

  async getState(endpoint: string, type: string, key: string): Promise<StateItem | undefined> {
    const r = await this.db
      .selectFrom('state')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .where('type', '=', type)
      .where('key', '=', key)
      .executeTakeFirst();
    return (
      r && {
        type: r.type as StateItem['type'],
        key: r.key,
        value: JSON.parse(r.value) as Json,
        lastModified: Number(r.updated_at),
      }
    );
  }

  async putState(endpoint: string, item: Omit<StateItem, 'lastModified'>): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const now = Date.now();
      const value = JSON.stringify(item.value);
      const r = await tx
        .updateTable('state')
        .set({ value, updated_at: now })
        .where('endpoint', '=', endpoint)
        .where('type', '=', item.type)
        .where('key', '=', item.key)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) > 0) return false;
      await tx
        .insertInto('state')
        .values({ endpoint, type: item.type, key: item.key, value, updated_at: now })
        .execute();
      return true;
    });
  }

  async deleteState(endpoint: string, type: string, key: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('state')
      .where('endpoint', '=', endpoint)
      .where('type', '=', type)
      .where('key', '=', key)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async deleteAllState(endpoint: string): Promise<number> {
    const r = await this.db.deleteFrom('state').where('endpoint', '=', endpoint).executeTakeFirst();
    return Number(r.numDeletedRows);
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
}
