/**
 * The job of a spec upload (SPEC §7), as the hosted service reports it: a document that validated is
 * answered 202 with a QUEUED job at once; the job then stores the document (replacing the endpoint's
 * previous one), compiles it for serving and ends COMPLETED with the operations it found, or FAILED
 * with why. Jobs live in the store, so `GET …/jobs/:jobId` answers on every instance. One endpoint's
 * jobs run one after another, in upload order: the last upload is the one that serves.
 */
import { randomUUID } from 'node:crypto';
import type { OasDeps } from './deps.js';
import type { Json, SpecJobRecord, SpecRecord } from '../store/index.js';
import { compiledSpecOf } from './serve.js';
import type { ValidSpec } from './validate.js';

/** Per endpoint, the job that runs last: the next one starts when it has ended. */
const chains = new Map<string, Promise<void>>();

async function run(
  ctx: OasDeps,
  job: SpecJobRecord,
  spec: ValidSpec,
  intelligenceMock: boolean,
  store: (spec: SpecRecord) => Promise<void>,
): Promise<void> {
  const n = spec.operations.length;
  try {
    await ctx.store.updateSpecJob(job.id, {
      status: 'PROCESSING',
      progress: 50,
      message: `Storing and compiling ${n} operations.`,
    });
    await store({
      endpoint: job.endpoint,
      type: 'openapi',
      jobId: job.id,
      intelligenceMock,
      title: spec.title,
      version: spec.version,
      specVersion: spec.specVersion,
      operations: spec.operations as unknown as Json[],
      files: [],
      size: Buffer.byteLength(spec.document),
      createdAt: ctx.now(),
      document: spec.document,
    });
    // Compiled now, so that the first request after COMPLETED finds it ready.
    const ep = await ctx.endpoints.get(job.endpoint);
    if (ep) await compiledSpecOf(ctx, ep.record);
    await ctx.store.updateSpecJob(job.id, {
      status: 'COMPLETED',
      progress: 100,
      message: `${spec.title || 'The API'} ${spec.version}: ${n} operation${n === 1 ? ' is' : 's are'} mocked.`,
      result: {
        title: spec.title,
        version: spec.version,
        specVersion: spec.specVersion,
        operations: spec.operations as unknown as Json[],
      },
      completedAt: ctx.now(),
    });
  } catch (err) {
    ctx.log.error({ err, endpoint: job.endpoint, jobId: job.id }, 'OpenAPI spec job failed');
    await ctx.store
      .updateSpecJob(job.id, {
        status: 'FAILED',
        message: 'The spec could not be stored; upload it again.',
        failedAt: ctx.now(),
      })
      .catch((e: unknown) => ctx.log.error({ err: e, jobId: job.id }, 'OpenAPI spec job state lost'));
  }
}

/**
 * Records a QUEUED job for a validated document and starts it after the current turn; returns the job
 * as it was created (what the 202 answers). `store` writes the document and announces the change
 * (src/admin/specs.ts), before it is compiled, so the compile reads the endpoint afresh.
 */
export async function startSpecJob(
  ctx: OasDeps,
  endpoint: string,
  spec: ValidSpec,
  intelligenceMock: boolean,
  store: (spec: SpecRecord) => Promise<void>,
): Promise<SpecJobRecord> {
  const n = spec.operations.length;
  const job: SpecJobRecord = {
    id: randomUUID(),
    endpoint,
    type: 'oas',
    status: 'QUEUED',
    message: `The document is valid; its ${n} operation${n === 1 ? ' is' : 's are'} queued for mocking.`,
    progress: 0,
    result: null,
    createdAt: ctx.now(),
    completedAt: null,
    failedAt: null,
  };
  await ctx.store.createSpecJob(job);
  const previous = chains.get(endpoint) ?? Promise.resolve();
  const next = previous
    .then(() => new Promise<void>((r) => setImmediate(r)))
    .then(() => run(ctx, job, spec, intelligenceMock, store));
  chains.set(endpoint, next);
  void next.finally(() => {
    if (chains.get(endpoint) === next) chains.delete(endpoint);
  });
  return job;
}

/** The job as the API shows it: `{ jobId, type, status, message, progress, result, createdAt, completedAt | failedAt }`. */
export function jobView(j: SpecJobRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    jobId: j.id,
    type: j.type,
    status: j.status,
    message: j.message,
    progress: j.progress,
    createdAt: new Date(j.createdAt).toISOString(),
  };
  if (j.result !== null) view['result'] = j.result;
  if (j.completedAt !== null) view['completedAt'] = new Date(j.completedAt).toISOString();
  if (j.failedAt !== null) view['failedAt'] = new Date(j.failedAt).toISOString();
  return view;
}
