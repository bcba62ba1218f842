/**
 * Response blobs (SPEC §4 `POST …/blobs`): one row per endpoint and name, the bytes in the row. A put
 * with a quota checks what the endpoint's and all endpoints' blobs hold in the same transaction as the
 * write; on PostgreSQL the puts take one advisory lock, so puts racing on several instances cannot
 * each see room for theirs and pass a quota together.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { BlobMeta, BlobQuota, BlobRecord, BlobRefusal } from './types.js';

/** The advisory lock that serialises blob puts with a quota on PostgreSQL ('mbblob' in ASCII). */
const PG_BLOB_LOCK = 0x6d62626c6f62;

export class BlobTable {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
  ) {}

  async put(b: BlobRecord, quota?: BlobQuota): Promise<boolean | BlobRefusal> {
    if (!quota) return this.insert(this.db, b);
    return this.db.transaction().execute(async (tx) => {
      if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${PG_BLOB_LOCK})`.execute(tx);
      const used = async (endpoint?: string): Promise<number> => {
        let q = tx.selectFrom('blobs').select((eb) => eb.fn.sum<number | string | null>('size').as('bytes'));
        if (endpoint !== undefined) q = q.where('endpoint', '=', endpoint);
        return Number((await q.executeTakeFirstOrThrow()).bytes ?? 0);
      };
      const mine = await used(b.endpoint);
      if (mine + b.size > quota.endpoint) return { why: 'endpoint_quota', used: mine, quota: quota.endpoint };
      const all = await used();
      if (all + b.size > quota.total) return { why: 'total_quota', used: all, quota: quota.total };
      return this.insert(tx, b);
    });
  }

  private async insert(db: Kysely<Database>, b: BlobRecord): Promise<boolean> {
    const r = await db
      .insertInto('blobs')
      .values({
        endpoint: b.endpoint,
        name: b.name,
        content_type: b.contentType,
        size: b.size,
        data: b.data,
        created_at: b.createdAt,
      })
      .onConflict((oc) => oc.columns(['endpoint', 'name']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async get(endpoint: string, name: string): Promise<BlobRecord | undefined> {
    const r = await this.db
      .selectFrom('blobs')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .where('name', '=', name)
      .executeTakeFirst();
    return (
      r && {
        endpoint: r.endpoint,
        name: r.name,
        contentType: r.content_type,
        size: Number(r.size),
        createdAt: Number(r.created_at),
        data: Buffer.from(r.data),
      }
    );
  }

  async list(endpoint: string): Promise<BlobMeta[]> {
    const rows = await this.db
      .selectFrom('blobs')
      .select(['name', 'content_type', 'size', 'created_at'])
      .where('endpoint', '=', endpoint)
      .orderBy('created_at')
      .orderBy('name')
      .execute();
    return rows.map((r) => ({
      name: r.name,
      contentType: r.content_type,
      size: Number(r.size),
      createdAt: Number(r.created_at),
    }));
  }

  async delete(endpoint: string, name: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('blobs')
      .where('endpoint', '=', endpoint)
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
