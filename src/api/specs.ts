/**
 * OpenAPI specs (SPEC §7), relative to /api/v2:
 *   POST   /endpoints/:ep/specs          multipart `file` (+ `intelligenceMock`), or the document as the
 *                                        body (JSON or YAML, `?intelligenceMock=true`): 400 with the
 *                                        parser's findings, else 202 { jobId, type, status, message }
 *   GET    /endpoints/:ep/specs          { data: { type, intelligenceMock, title, version, operations } }
 *   DELETE /endpoints/:ep/specs          { data: { deleted: true } }
 *   GET    /endpoints/:ep/jobs/:jobId    the job, with progress, result and completedAt or failedAt
 * A document is at most OAS_SPEC_LIMIT bytes and is validated in a worker thread (src/oas/), so a
 * large one does not hold the requests of other clients.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ApiDeps } from './deps.js';
import { AppError } from '../errors.js';
import { fileUploadParser, FileUpload } from '../http/index.js';
import { deleteSpec, refuseWithoutOpenapi, uploadSpec } from '../admin/index.js';
import { jobView } from '../oas/index.js';
import { StringEnum } from '../schema/index.js';
import { DataOf, EndpointParams, NoQuery } from './schemas/common.js';

const TAGS = ['OpenAPI'];

/** A document sent as the body (JSON or YAML text), not parsed on this thread. */
class SpecText {
  constructor(readonly text: string) {}
}

const Operation = Type.Object({
  method: Type.String({ examples: ['GET'] }),
  path: Type.String({ examples: ['/pets/{petId}'] }),
  operationId: Type.Optional(Type.String()),
  summary: Type.Optional(Type.String()),
});

const STATUSES = ['QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;

export const JobAccepted = Type.Object({
  jobId: Type.String(),
  type: Type.Literal('oas'),
  status: StringEnum(STATUSES),
  message: Type.String(),
});

export const Job = Type.Object({
  ...JobAccepted.properties,
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  createdAt: Type.String({ format: 'date-time' }),
  result: Type.Optional(
    Type.Object({
      title: Type.String(),
      version: Type.String(),
      specVersion: Type.String({ examples: ['3.1.0', '2.0'] }),
      operations: Type.Array(Operation),
    }),
  ),
  completedAt: Type.Optional(Type.String({ format: 'date-time' })),
  failedAt: Type.Optional(Type.String({ format: 'date-time' })),
});

export const Spec = Type.Object({
  type: Type.Literal('openapi'),
  intelligenceMock: Type.Boolean(),
  title: Type.String(),
  version: Type.String(),
  specVersion: Type.String({ examples: ['3.1.0', '3.0.3', '2.0'] }),
  jobId: Type.String(),
  uploadedAt: Type.String({ format: 'date-time' }),
  operations: Type.Array(Operation),
});

const UploadQuery = Type.Object(
  {
    intelligenceMock: Type.Optional(
      Type.Boolean({
        description: 'For a document sent as the body: generated data even where the document has examples.',
      }),
    ),
  },
  { additionalProperties: false },
);

const JobParams = Type.Object({
  ep: EndpointParams.properties.ep,
  jobId: Type.String({ minLength: 1, maxLength: 100 }),
});

/** `intelligenceMock` of a multipart upload: `true` or `false`. */
function flag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new AppError('validation_error', 'intelligenceMock must be true or false.', {
    details: [
      { path: '/intelligenceMock', message: 'must be true or false', received: JSON.stringify(value) },
    ],
  });
}

/** The OpenAPI routes, relative to /endpoints/:ep (endpoint-scope.ts). */
export async function specsApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'endpoints' | 'events' | 'fence' | 'log' | 'now' | 'store'>,
): Promise<void> {
  const limit = ctx.config.oasSpecLimit;
  // This scope's only body is the document: a file, or text of any type (YAML has no one type).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'multipart/form-data',
    fileUploadParser({ field: 'file', limit, noun: 'OpenAPI document', fields: ['intelligenceMock'] }),
  );
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) =>
    done(null, new SpecText(body as string)),
  );

  app.post<{ Params: { ep: string }; Querystring: { intelligenceMock?: boolean } }>(
    '/specs',
    {
      bodyLimit: limit,
      config: { endpoint: { writable: true } },
      schema: {
        tags: TAGS,
        summary: 'Upload an OpenAPI 3.0, 3.1 or Swagger 2.0 document (202 with a job)',
        description:
          'Multipart with the document in the field `file` (and optionally `intelligenceMock`), or the ' +
          'document itself as the body, JSON or YAML. At most OAS_SPEC_LIMIT bytes (5 MiB by default). ' +
          'An invalid document is 400 with the findings; a valid one is 202 with a job to poll.',
        params: EndpointParams,
        querystring: UploadQuery,
        response: { 202: JobAccepted },
      },
    },
    async (request, reply) => {
      const ep = request.endpoint;
      refuseWithoutOpenapi(ctx, ep);
      let text: string;
      let intelligenceMock = request.query.intelligenceMock ?? false;
      if (request.body instanceof FileUpload) {
        text = request.body.data.toString('utf8');
        intelligenceMock = flag(request.body.fields['intelligenceMock']) ?? intelligenceMock;
      } else if (request.body instanceof SpecText && request.body.text.trim() !== '') {
        text = request.body.text;
      } else
        throw new AppError(
          'validation_error',
          'Send the OpenAPI document as the body (JSON or YAML), or as multipart/form-data in the field "file".',
          { details: [{ path: '/file', message: 'Required' }] },
        );
      const job = await uploadSpec(ctx, ep, text, intelligenceMock);
      return reply
        .code(202)
        .send({ jobId: job.id, type: job.type, status: job.status, message: job.message });
    },
  );

  app.get<{ Params: { ep: string } }>(
    '/specs',
    {
      schema: {
        tags: TAGS,
        summary: "The endpoint's OpenAPI document: what it offers (404 when none)",
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: DataOf(Spec) },
      },
    },
    async (request) => {
      const ep = request.endpoint;
      const spec = await ctx.store.getSpecInfo(ep.name);
      if (!spec) throw new AppError('not_found', `Endpoint "${ep.name}" has no OpenAPI document.`);
      return {
        data: {
          type: 'openapi' as const,
          intelligenceMock: spec.intelligenceMock,
          title: spec.title,
          version: spec.version,
          specVersion: spec.specVersion,
          jobId: spec.jobId,
          uploadedAt: new Date(spec.createdAt).toISOString(),
          operations: spec.operations,
        },
      };
    },
  );

  app.delete<{ Params: { ep: string } }>(
    '/specs',
    {
      schema: {
        tags: TAGS,
        summary: "Delete the endpoint's OpenAPI document (404 when none)",
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: DataOf(Type.Object({ deleted: Type.Literal(true) })) },
      },
    },
    async (request) => {
      const ep = request.endpoint;
      if (!(await deleteSpec(ctx, ep)))
        throw new AppError('not_found', `Endpoint "${ep.name}" has no OpenAPI document.`);
      return { data: { deleted: true as const } };
    },
  );

  app.get<{ Params: { ep: string; jobId: string } }>(
    '/jobs/:jobId',
    {
      schema: {
        tags: TAGS,
        summary: 'A job: the processing of an OpenAPI upload',
        params: JobParams,
        querystring: NoQuery,
        response: { 200: Job },
      },
    },
    async (request) => {
      const ep = request.endpoint;
      const job = await ctx.store.getSpecJob(ep.name, request.params.jobId);
      if (!job)
        throw new AppError('not_found', `Endpoint "${ep.name}" has no job "${request.params.jobId}".`);
      return jobView(job);
    },
  );
}
