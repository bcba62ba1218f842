/**
 * The rows of uploaded documents (SPEC §7, §13): one per endpoint (`oas_specs`: an OpenAPI document
 * as JSON text, or gRPC descriptors as base64, beside what the API shows of it) and the jobs that
 * process uploads (`oas_jobs`), of which each endpoint keeps its newest few.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Json, SpecInfo, SpecJobRecord, SpecJobStatus, SpecRecord, Store } from './types.js';

/** Jobs an endpoint keeps by default; older ones are deleted as new ones arrive. */
export const SPEC_JOBS_KEPT = 20;

type SpecRow = Database['oas_specs'];
type JobRow = Database['oas_jobs'];

function infoOf(r: Omit<SpecRow, 'document'>): SpecInfo {
  return {
    endpoint: r.endpoint,
    type: r.type === 'grpc' ? 'grpc' : 'openapi',
    jobId: r.job_id,
    intelligenceMock: Number(r.intelligence_mock) === 1,
    title: r.title,
    version: r.version,
    specVersion: r.spec_version,
    operations: JSON.parse(r.operations) as Json[],
    files: JSON.parse(r.files) as string[],
    size: Number(r.size),
    createdAt: Number(r.created_at),
  };
}

function jobOf(r: JobRow): SpecJobRecord {
  return {
    id: r.id,
    endpoint: r.endpoint,
    type: r.type === 'grpc' ? 'grpc' : 'oas',
    status: r.status as SpecJobStatus,
    message: r.message,
    progress: Number(r.progress),
    result: r.result === null ? null : (JSON.parse(r.result) as Json),
    createdAt: Number(r.created_at),
    completedAt: r.completed_at === null ? null : Number(r.completed_at),
    failedAt: r.failed_at === null ? null : Number(r.failed_at),
  };
}

const INFO_COLUMNS = [
  'endpoint',
  'type',
  'job_id',
  'intelligence_mock',
  'title',
  'version',
  'spec_version',
  'operations',
  'files',
  'size',
  'created_at',
] as const;

export class SpecTable {
  constructor(private readonly db: Kysely<Database>) {}

  async put(s: SpecRecord): Promise<void> {
    const row: SpecRow = {
      endpoint: s.endpoint,
      type: s.type,
      job_id: s.jobId,
      intelligence_mock: s.intelligenceMock ? 1 : 0,
      title: s.title,
      version: s.version,
      spec_version: s.specVersion,
      operations: JSON.stringify(s.operations),
      document: s.document,
      files: JSON.stringify(s.files),
      size: s.size,
      created_at: s.createdAt,
    };
    const { endpoint: _key, ...rest } = row;
    await this.db
      .insertInto('oas_specs')
      .values(row)
      .onConflict((oc) => oc.column('endpoint').doUpdateSet(rest))
      .execute();
  }

  async get(endpoint: string): Promise<SpecRecord | undefined> {
    const r = await this.db
      .selectFrom('oas_specs')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .executeTakeFirst();
    return r && { ...infoOf(r), document: r.document };
  }

  async info(endpoint: string): Promise<SpecInfo | undefined> {
    const r = await this.db
      .selectFrom('oas_specs')
      .select(INFO_COLUMNS)
      .where('endpoint', '=', endpoint)
      .executeTakeFirst();
    return r && infoOf(r);
  }

  async delete(endpoint: string): Promise<boolean> {
    const r = await this.db.deleteFrom('oas_specs').where('endpoint', '=', endpoint).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async createJob(j: SpecJobRecord, keep = SPEC_JOBS_KEPT): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx
        .insertInto('oas_jobs')
        .values({
          id: j.id,
          endpoint: j.endpoint,
          type: j.type,
          status: j.status,
          message: j.message,
          progress: j.progress,
          result: j.result === null ? null : JSON.stringify(j.result),
          created_at: j.createdAt,
          completed_at: j.completedAt,
          failed_at: j.failedAt,
        })
        .execute();
      const old = await tx
        .selectFrom('oas_jobs')
        .select('id')
        .where('endpoint', '=', j.endpoint)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset(keep)
        .limit(1000)
        .execute();
      if (old.length > 0)
        await tx
          .deleteFrom('oas_jobs')
          .where(
            'id',
            'in',
            old.map((o) => o.id),
          )
          .execute();
    });
  }

  async updateJob(id: string, patch: Parameters<Store['updateSpecJob']>[1]): Promise<boolean> {
    const set: Partial<JobRow> = {};
    if (patch.status !== undefined) set.status = patch.status;
    if (patch.message !== undefined) set.message = patch.message;
    if (patch.progress !== undefined) set.progress = patch.progress;
    if (patch.result !== undefined) set.result = patch.result === null ? null : JSON.stringify(patch.result);
    if (patch.completedAt !== undefined) set.completed_at = patch.completedAt;
    if (patch.failedAt !== undefined) set.failed_at = patch.failedAt;
    if (Object.keys(set).length === 0)
      return (
        (await this.db.selectFrom('oas_jobs').select('id').where('id', '=', id).executeTakeFirst()) !==
        undefined
      );
    const r = await this.db.updateTable('oas_jobs').set(set).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async getJob(endpoint: string, id: string): Promise<SpecJobRecord | undefined> {
    const r = await this.db
      .selectFrom('oas_jobs')
      .selectAll()
      .where('endpoint', '=', endpoint)
      .where('id', '=', id)
      .executeTakeFirst();
    return r && jobOf(r);
  }

  /** Deletes an endpoint's spec and jobs, inside the caller's transaction. */
  static async deleteEndpoint(tx: Kysely<Database>, endpoint: string): Promise<void> {
    await tx.deleteFrom('oas_specs').where('endpoint', '=', endpoint).execute();
    await tx.deleteFrom('oas_jobs').where('endpoint', '=', endpoint).execute();
  }
}
