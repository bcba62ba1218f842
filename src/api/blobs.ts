/**
 * Response blobs (SPEC §4): files a mock action answers with instead of a text body.
 *   POST   /endpoints/:ep/blobs             multipart field `file` → 201 { blobPath }
 *   GET    /endpoints/:ep/blobs             { data: [{ blobPath, contentType, size, createdAt }] }
 *   DELETE /endpoints/:ep/blobs/:blobPath   { blobPath, deleted: true }; 409 while a rule uses it
 * The service names each blob (`res-body-<UTC timestamp>-<random>.<extension>`), so a client-chosen
 * name never reaches a path or a header. Blobs live in the store, beside the endpoint's rules.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ApiDeps } from './deps.js';
import { AppError } from '../errors.js';
import { fileUploadParser, FileUpload } from '../http/index.js';
import { deleteBlob, storeBlob } from '../admin/index.js';
import { DataOf, EndpointParams, NoQuery } from './schemas/common.js';

const TAGS = ['Blobs'];

const BlobParams = Type.Object({
  ep: EndpointParams.properties.ep,
  blobPath: Type.String({ minLength: 1, maxLength: 300 }),
});

export const Blob = Type.Object({
  blobPath: Type.String(),
  contentType: Type.String(),
  size: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
});

/** The extension of an uploaded file's name, or one for its type. */
function extensionOf(fileName: string, contentType: string): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(fileName);
  if (m) return m[1]!.toLowerCase();
  if (/json/.test(contentType)) return 'json';
  if (/xml/.test(contentType)) return 'xml';
  if (contentType.startsWith('text/')) return 'txt';
  return 'bin';
}

/** `res-body-20261123T045501Z-1f2e3d4c.json` */
function blobName(now: number, ext: string): string {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `res-body-${stamp}-${randomBytes(4).toString('hex')}.${ext}`;
}

/** The blob routes, relative to /endpoints/:ep (endpoint-scope.ts). */
export async function blobsApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'events' | 'fence' | 'now' | 'store'>,
): Promise<void> {
  app.addContentTypeParser(
    'multipart/form-data',
    fileUploadParser({ field: 'file', limit: ctx.config.blobLimit, noun: 'file' }),
  );

  app.post<{ Params: { ep: string } }>(
    '/blobs',
    {
      config: { endpoint: { writable: true } },
      schema: {
        tags: TAGS,
        summary: 'Upload a response body (multipart field `file`)',
        params: EndpointParams,
        querystring: NoQuery,
        response: { 201: Type.Object({ blobPath: Type.String() }) },
      },
    },
    async (request, reply) => {
      const ep = request.endpoint;
      if (!(request.body instanceof FileUpload))
        throw new AppError('validation_error', 'Send the file as multipart/form-data, in the field "file".', {
          details: [{ path: '/file', message: 'Required' }],
        });
      const upload = request.body;
      const now = ctx.now();
      const name = blobName(now, extensionOf(upload.fileName, upload.contentType));
      await storeBlob(ctx, {
        endpoint: ep.name,
        name,
        contentType: upload.contentType || 'application/octet-stream',
        size: upload.data.length,
        data: upload.data,
        createdAt: now,
      });
      return reply.code(201).send({ blobPath: name });
    },
  );

  app.get<{ Params: { ep: string } }>(
    '/blobs',
    {
      schema: {
        tags: TAGS,
        summary: "The endpoint's blobs",
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: DataOf(Type.Array(Blob)) },
      },
    },
    async (request) => {
      const data = (await ctx.store.listBlobs(request.endpoint.name)).map((b) => ({
        blobPath: b.name,
        contentType: b.contentType,
        size: b.size,
        createdAt: new Date(b.createdAt).toISOString(),
      }));
      return { data };
    },
  );

  app.delete<{ Params: { ep: string; blobPath: string } }>(
    '/blobs/:blobPath',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a blob (409 while a rule answers with it)',
        params: BlobParams,
        querystring: NoQuery,
        response: { 200: Type.Object({ blobPath: Type.String(), deleted: Type.Literal(true) }) },
      },
    },
    async (request) => {
      const { blobPath } = request.params;
      await deleteBlob(ctx, request.endpoint, blobPath);
      return { blobPath, deleted: true as const };
    },
  );
}
