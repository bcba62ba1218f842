/** Response blobs (SPEC §4 `POST …/blobs`): one row per endpoint and name, the bytes in the row. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { BlobMeta, BlobRecord } from './types.js';

export class BlobTable {
  constructor(private readonly db: Kysely<Database>) {}

  async put(b: BlobRecord): Promise<boolean> {
    const r = await this.db
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
