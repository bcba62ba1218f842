/**
 * An endpoint's spec: an OpenAPI document (SPEC §7) or gRPC descriptors (§13), relative to /api/v2:
 *   POST   /endpoints/:ep/specs          multipart `file` (+ `intelligenceMock`, `type`), or the
 *                                        document as the body (`?intelligenceMock=true`, `?type=`):
 *                                        400 with the findings, else 202 { jobId, type, status, message }
 *   GET    /endpoints/:ep/specs          { data: { type: 'openapi', …, warnings } } or { data: { type: 'grpc', … } }
 *   DELETE /endpoints/:ep/specs          { data: { deleted: true } }
 *   GET    /endpoints/:ep/jobs/:jobId    the job, with progress, result and completedAt or failedAt
 * Which kind an upload is: spec-kind.ts; a zip (its first bytes) is OpenAPI files to bundle (oas/bundle.ts). An OpenAPI document is at most OAS_SPEC_LIMIT bytes, gRPC
 * descriptors GRPC_SPEC_LIMIT; both are checked or compiled in a worker thread, so a large one does
 * not hold the requests of other clients. An endpoint has one spec: an upload of either kind
 * replaces the other.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ApiDeps } from './deps.js';
import { AppError } from '../errors.js';
import { fileUploadParser, FileUpload } from '../http/index.js';
import { deleteSpec, refuseWithoutOpenapi, uploadGrpcSpec, uploadSpec } from '../admin/index.js';
import { isZip, jobView } from '../oas/index.js';
import { GRPC_SPEC_LIMIT, grpcSpecView, CALL_TYPES } from '../grpc/index.js';
import type { EndpointRecord, SpecJobRecord } from '../store/index.js';
import { specKindOf, type SpecKind } from './spec-kind.js';
import { StringEnum } from '../schema/index.js';
import { DataOf, EndpointParams, NoQuery } from './schemas/common.js';

const TAGS = ['OpenAPI'];
const KINDS = ['openapi', 'grpc'] as const;

/** A document sent as the body (JSON or YAML text, a .proto, a descriptor set), not parsed here. */
class SpecBody {
  constructor(
    readonly data: Buffer,
    readonly contentType: string | undefined,
  ) {}
}

const Operation = Type.Object({
  method: Type.String({ examples: ['GET'] }),
  path: Type.String({ examples: ['/pets/{petId}'] }),
  operationId: Type.Optional(Type.String()),
  summary: Type.Optional(Type.String()),
});

const Warning = Type.Object({
  path: Type.String({
    description: 'Where in the document (a JSON pointer).',
    examples: ['/paths/~1pets~1{id}/get'],
  }),
  message: Type.String(),
});

const Warnings = Type.Array(Warning, {
  description:
    'Problems of the document that do not prevent mocking it: a path parameter not declared, a reference that points at nothing, a component nothing refers to, an invalid example, no operations.',
});

const Service = Type.Object({
  name: Type.String({ examples: ['user.UserService'] }),
  methods: Type.Array(
    Type.Object({
      name: Type.String({ examples: ['GetUser'] }),
      callType: StringEnum(CALL_TYPES),
      inputType: Type.String({ examples: ['user.GetUserRequest'] }),
      outputType: Type.String({ examples: ['user.User'] }),
    }),
  ),
});

const STATUSES = ['QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;

export const JobAccepted = Type.Object({
  jobId: Type.String(),
  type: StringEnum(['oas', 'grpc'], {
    description: '`oas` for an OpenAPI document, `grpc` for gRPC descriptors.',
  }),
  status: StringEnum(STATUSES),
  message: Type.String(),
});

export const Job = Type.Object({
  ...JobAccepted.properties,
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  createdAt: Type.String({ format: 'date-time' }),
  result: Type.Optional(
    Type.Union([
      Type.Object({
        title: Type.String(),
        version: Type.String(),
        specVersion: Type.String({ examples: ['3.1.0', '2.0'] }),
        operations: Type.Array(Operation),
        warnings: Type.Optional(Warnings),
      }),
      Type.Object({ syntax: Type.String(), files: Type.Array(Type.String()), services: Type.Array(Service) }),
    ]),
  ),
  completedAt: Type.Optional(Type.String({ format: 'date-time' })),
  failedAt: Type.Optional(Type.String({ format: 'date-time' })),
});

export const OpenapiSpec = Type.Object({
  type: Type.Literal('openapi'),
  intelligenceMock: Type.Boolean(),
  title: Type.String(),
  version: Type.String(),
  specVersion: Type.String({ examples: ['3.1.0', '3.0.3', '2.0'] }),
  jobId: Type.String(),
  uploadedAt: Type.String({ format: 'date-time' }),
  operations: Type.Array(Operation),
  warnings: Warnings,
});

export const GrpcSpec = Type.Object({
  type: Type.Literal('grpc'),
  syntax: Type.String({ examples: ['proto3'] }),
  files: Type.Array(Type.String(), { examples: [['user.proto']] }),
  services: Type.Array(Service),
  jobId: Type.String(),
  uploadedAt: Type.String({ format: 'date-time' }),
});

/** An endpoint's spec as GET …/specs shows it: one kind or the other. */
export const Spec = Type.Union([OpenapiSpec, GrpcSpec]);

const UploadQuery = Type.Object(
  {
    intelligenceMock: Type.Optional(
      Type.Boolean({
        description: 'For a document sent as the body: generated data even where the document has examples.',
      }),
    ),
    type: Type.Optional(
      StringEnum(KINDS, {
        description: 'The kind of document, when the file name, Content-Type and text do not say it.',
      }),
    ),
  },
  { additionalProperties: false },
);

const JobParams = Type.Object({
  ep: EndpointParams.properties.ep,
  jobId: Type.String({ minLength: 1, maxLength: 100 }),
});

/** `type` of a multipart upload: `openapi` or `grpc`. */
function kind(value: string | undefined): SpecKind | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'openapi' || v === 'grpc') return v;
  throw new AppError('validation_error', 'type must be openapi or grpc.', {
    details: [{ path: '/type', message: 'must be openapi or grpc', received: JSON.stringify(value) }],
  });
}

/** 413 for an upload larger than its kind's limit. */
function refuseOver(data: Buffer, limit: number, what: string): void {
  if (data.length > limit)
    throw new AppError('payload_too_large', `The ${what} is larger than ${limit} bytes.`);
}

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
  const oasLimit = ctx.config.oasSpecLimit;
  // What the body may be before its kind is known: the larger limit; each kind's is checked after.
  const limit = Math.max(oasLimit, GRPC_SPEC_LIMIT);
  // This scope's only body is the document: a file, or a body of any type (YAML has no one type, a
  // descriptor set is binary), kept as bytes until its kind is known.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'multipart/form-data',
    fileUploadParser({ field: 'file', limit, noun: 'spec', fields: ['intelligenceMock', 'type'] }),
  );
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: limit }, (request, body, done) =>
    done(null, new SpecBody(body as Buffer, request.headers['content-type'])),
  );

  /** Stores an upload of either kind; answers its QUEUED job. */
  async function upload(
    ep: EndpointRecord,
    data: Buffer,
    k: SpecKind,
    intelligenceMock: boolean | undefined,
    fileName?: string,
  ): Promise<SpecJobRecord> {
    if (k === 'grpc') {
      if (intelligenceMock !== undefined)
        throw new AppError('validation_error', 'intelligenceMock applies to OpenAPI documents only.', {
          details: [{ path: '/intelligenceMock', message: 'not allowed with gRPC descriptors' }],
        });
      refuseWithoutOpenapi(ctx, ep, 'gRPC');
      refuseOver(data, GRPC_SPEC_LIMIT, 'gRPC upload');
      return uploadGrpcSpec(ctx, ep, fileName ? { data, filename: fileName } : { data });
    }
    refuseWithoutOpenapi(ctx, ep);
    refuseOver(data, oasLimit, 'OpenAPI document');
    // A zip of files that refer to each other goes to the worker as bytes, bundled there.
    return uploadSpec(ctx, ep, isZip(data) ? data : data.toString('utf8'), intelligenceMock ?? false);
  }

  app.post<{ Params: { ep: string }; Querystring: { intelligenceMock?: boolean; type?: SpecKind } }>(
    '/specs',
    {
      bodyLimit: limit,
      config: { endpoint: { writable: true } },
      schema: {
        tags: TAGS,
        summary: 'Upload an OpenAPI 3.0, 3.1 or Swagger 2.0 document, or gRPC descriptors (202 with a job)',
        description:
          'Multipart with the document in the field `file` (and optionally `intelligenceMock` and ' +
          '`type`), or the document itself as the body. gRPC descriptors are a `.proto` file or a ' +
          'compiled descriptor set (protoc --include_imports --descriptor_set_out, buf build): a file ' +
          'named *.proto, *.pb, *.binpb, *.desc or *.protoset, a body of type application/x-protobuf, ' +
          'application/protobuf, application/octet-stream, text/x-protobuf or ' +
          'application/x-protobuf-descriptor, or text that starts like a .proto file; `type` forces ' +
          'the kind. Anything else is an OpenAPI document, JSON or YAML. At most OAS_SPEC_LIMIT bytes ' +
          '(16 MiB by default) for OpenAPI, 2.5 MB for gRPC. An endpoint has one spec: an upload of ' +
          'either kind replaces the other. An invalid upload is 400 with the findings; a valid one is ' +
          '202 with a job to poll (type `oas` or `grpc`). Problems of an OpenAPI document that do not ' +
          "prevent mocking it are `warnings` in the job's result and in GET …/specs. A zip (as the file or " +
          'as a body of type application/zip) of OpenAPI files that refer to each other ' +
          '(`$ref: ./schemas/pet.yaml#/Pet`) is bundled into one document: its root is ' +
          'openapi.yaml|json or swagger.yaml|json at its top, else its only file with `openapi` or ' +
          '`swagger`; at most 500 entries, OAS_SPEC_LIMIT bytes uncompressed, no entry inflating more ' +
          'than 100 times, no path leaving the zip; references to URLs or files outside it are refused.',
        params: EndpointParams,
        querystring: UploadQuery,
        response: { 202: JobAccepted },
      },
    },
    async (request, reply) => {
      const ep = request.endpoint;
      const body = request.body;
      let job: SpecJobRecord;
      if (body instanceof FileUpload) {
        const forced = kind(body.fields['type']) ?? request.query.type;
        const k =
          forced === undefined && isZip(body.data)
            ? 'openapi'
            : specKindOf({ forced, fileName: body.fileName, data: body.data });
        const im = flag(body.fields['intelligenceMock']) ?? request.query.intelligenceMock;
        job = await upload(ep, body.data, k, im, body.fileName);
      } else if (body instanceof SpecBody && body.data.toString('utf8').trim() !== '') {
        const forced = request.query.type;
        const k =
          forced === undefined && isZip(body.data)
            ? 'openapi'
            : specKindOf({ forced, contentType: body.contentType, data: body.data });
        job = await upload(ep, body.data, k, request.query.intelligenceMock);
      } else
        throw new AppError(
          'validation_error',
          'Send the document as the body (OpenAPI as JSON or YAML, a .proto, a descriptor set), or as multipart/form-data in the field "file".',
          { details: [{ path: '/file', message: 'Required' }] },
        );
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
        summary: "The endpoint's spec, OpenAPI or gRPC: what it offers (404 when none)",
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: DataOf(Spec) },
      },
    },
    async (request) => {
      const ep = request.endpoint;
      const spec = await ctx.store.getSpecInfo(ep.name);
      if (!spec) throw new AppError('not_found', `Endpoint "${ep.name}" has no spec.`);
      const uploadedAt = new Date(spec.createdAt).toISOString();
      if (spec.type === 'grpc')
        return { data: { type: 'grpc' as const, ...grpcSpecView(spec), jobId: spec.jobId, uploadedAt } };
      // The warnings are the upload job's (kept while the job is among the endpoint's newest).
      const job = await ctx.store.getSpecJob(ep.name, spec.jobId);
      const result = job?.result;
      const warnings =
        result && typeof result === 'object' && !Array.isArray(result) && Array.isArray(result['warnings'])
          ? (result['warnings'] as { path: string; message: string }[])
          : [];
      return {
        data: {
          type: 'openapi' as const,
          intelligenceMock: spec.intelligenceMock,
          title: spec.title,
          version: spec.version,
          specVersion: spec.specVersion,
          jobId: spec.jobId,
          uploadedAt,
          operations: spec.operations,
          warnings,
        },
      };
    },
  );

  app.delete<{ Params: { ep: string } }>(
    '/specs',
    {
      schema: {
        tags: TAGS,
        summary: "Delete the endpoint's spec, OpenAPI or gRPC (404 when none)",
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: DataOf(Type.Object({ deleted: Type.Literal(true) })) },
      },
    },
    async (request) => {
      const ep = request.endpoint;
      if (!(await deleteSpec(ctx, ep))) throw new AppError('not_found', `Endpoint "${ep.name}" has no spec.`);
      return { data: { deleted: true as const } };
    },
  );

  app.get<{ Params: { ep: string; jobId: string } }>(
    '/jobs/:jobId',
    {
      schema: {
        tags: TAGS,
        summary: 'A job: the processing of an upload (type `oas` or `grpc`)',
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
