/**
 * The job of a spec upload (SPEC §7), as the hosted service reports it: a document that validated is
 * answered 202 with a QUEUED job at once; the job then stores the document (replacing the endpoint's
 * previous one), compiles it for serving and ends COMPLETED with the operations it found, or FAILED
 * with why. Jobs live in the store, so `GET …/jobs/:jobId` answers on every instance. One endpoint's
 * jobs run one after another, in upload order: the last upload is the one that serves. The job of a
 * gRPC upload (type `grpc`, SPEC §13) runs through the same chain (startUploadJob), since both kinds
 * replace the endpoint's one document.
 */
import { randomUUID } from 'node:crypto';
import type { OasDeps } from './deps.js';
import type { Json, SpecJobRecord, SpecRecord } from '../store/index.js';
import { compiledSpecOf } from './serve.js';
import type { ValidSpec } from './validate.js';

/** Per endpoint, the job that runs last: the next one starts when it has ended. */
const chains = new Map<string, Promise<void>>();

/** What a job does, whatever kind of document it stores (an OpenAPI document, gRPC descriptors). */
export interface UploadWork {
  type: SpecJobRecord['type'];
  /** The QUEUED job's message (what the 202 answers). */
  queued: string;
  /** The message while the document is stored and compiled. */
  processing: string;
  /** What the log calls the upload when its job fails: `OpenAPI spec`. */
  noun: string;
  /**
   * Stores the document (replacing the endpoint's previous one, announcing the change) and warms what
   * serves it; answers the COMPLETED job's message and result.
   */
  run(job: SpecJobRecord): Promise<{ message: string; result: Json }>;
}

type JobDeps = Pick<OasDeps, 'store' | 'log' | 'now'>;

async function run(ctx: JobDeps, job: SpecJobRecord, work: UploadWork): Promise<void> {
  try {
    await ctx.store.updateSpecJob(job.id, { status: 'PROCESSING', progress: 50, message: work.processing });
    const { message, result } = await work.run(job);
    await ctx.store.updateSpecJob(job.id, {
      status: 'COMPLETED',
      progress: 100,
      message,
      result,
      completedAt: ctx.now(),
    });
  } catch (err) {
    ctx.log.error({ err, endpoint: job.endpoint, jobId: job.id }, `${work.noun} job failed`);
    await ctx.store
      .updateSpecJob(job.id, {
        status: 'FAILED',
        message: 'The spec could not be stored; upload it again.',
        failedAt: ctx.now(),
      })
      .catch((e: unknown) => ctx.log.error({ err: e, jobId: job.id }, `${work.noun} job state lost`));
  }
}

/**
 * Records a QUEUED job of `work.type` and starts it after the current turn, after the endpoint's
 * previous jobs of any type; returns the job as it was created (what the 202 answers).
 */
export async function startUploadJob(
  ctx: JobDeps,
  endpoint: string,
  work: UploadWork,
): Promise<SpecJobRecord> {
  const job: SpecJobRecord = {
    id: randomUUID(),
    endpoint,
    type: work.type,
    status: 'QUEUED',
    message: work.queued,
    progress: 0,
    result: null,
    createdAt: ctx.now(),
    completedAt: null,
    failedAt: null,
  };
  await ctx.store.createSpecJob(job);
  const previous = chains.get(endpoint) ?? Promise.resolve();
  const next = previous.then(() => new Promise<void>((r) => setImmediate(r))).then(() => run(ctx, job, work));
  chains.set(endpoint, next);
  void next.finally(() => {
    if (chains.get(endpoint) === next) chains.delete(endpoint);
  });
  return job;
}

/**
 * Records a QUEUED job for a validated OpenAPI document and starts it (startUploadJob); its result
 * lists the document's `warnings` (lint.ts), which GET …/specs shows too, read from the job. `store` writes
 * the document and announces the change (src/admin/specs.ts), before it is compiled, so the compile
 * reads the endpoint afresh.
 */
export function startSpecJob(
  ctx: OasDeps,
  endpoint: string,
  spec: ValidSpec,
  intelligenceMock: boolean,
  store: (spec: SpecRecord) => Promise<void>,
): Promise<SpecJobRecord> {
  const n = spec.operations.length;
  const operations = spec.operations as unknown as Json[];
  const warnings = spec.warnings as unknown as Json[];
  const w = warnings.length;
  const queued =
    w === 0
      ? `The document is valid; its ${n} operation${n === 1 ? ' is' : 's are'} queued for mocking.`
      : `The document can be mocked, with ${w} warning${w === 1 ? '' : 's'} (see the job's result); its ${n} operation${n === 1 ? ' is' : 's are'} queued for mocking.`;
  return startUploadJob(ctx, endpoint, {
    type: 'oas',
    queued,
    processing: `Storing and compiling ${n} operations.`,
    noun: 'OpenAPI spec',
    async run(job) {
      await store({
        endpoint: job.endpoint,
        type: 'openapi',
        jobId: job.id,
        intelligenceMock,
        title: spec.title,
        version: spec.version,
        specVersion: spec.specVersion,
        operations,
        files: [],
        size: Buffer.byteLength(spec.document),
        createdAt: ctx.now(),
        document: spec.document,
      });
      // Compiled now, so that the first request after COMPLETED finds it ready.
      const ep = await ctx.endpoints.get(job.endpoint);
      if (ep) await compiledSpecOf(ctx, ep.record);
      return {
        message: `${spec.title || 'The API'} ${spec.version}: ${n} operation${n === 1 ? ' is' : 's are'} mocked.`,
        result: {
          title: spec.title,
          version: spec.version,
          specVersion: spec.specVersion,
          operations,
          warnings,
        },
      };
    },
  });
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
