/**
 * Request-history routes (SPEC §4 "Request history"), relative to /api/v2:
 *   GET    /endpoints/:ep/requests                      list, newest first, cursor pages, filters;
 *                                                       `?id=X` answers that entry alone;
 *                                                       `?format=har|ndjson` exports (history-export.ts)
 *   DELETE /endpoints/:ep/requests                      delete every entry matching the filters;
 *                                                       `?id=X` deletes that entry alone
 *   GET    /endpoints/:ep/requests/:id                  one entry, verbose
 *   DELETE /endpoints/:ep/requests/:id                  one entry
 *   GET    /endpoints/:ep/requests/:id/files/:fieldName an uploaded file, with its type and name
 *   GET    /endpoints/:ep/requests/:id/multipart/download?fieldName=…&component=Request|CalloutRequest
 *          the same, or a file the rule's callout sent
 * Each route checks the key's scope (403) before the endpoint's existence (404), so that a scoped
 * key learns nothing about other endpoints.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiDeps } from './deps.js';
import { AppError } from '../errors.js';
import { detail } from '../schema/index.js';
import { decodeCursor, type HistoryFile, type HistoryFilter } from '../store/index.js';
import {
  DeletedMany,
  DeletedOne,
  DeleteQuery,
  DownloadQuery,
  errorResponses,
  FileParams,
  GetQuery,
  ListQuery,
  RequestList,
  RequestParams,
  RequestRecord,
} from './history-schemas.js';
import { EndpointParams, NoQuery } from './schemas/common.js';
import { exportLimit, historyRecord, pageSize, toFilter } from './history-query.js';
import { EXPORT_TYPES, harOrigin, historyExport, VERSION } from './history-export.js';

const TAGS = ['Request history'];

/** A Content-Type safe to send back as a header; anything odd becomes a plain byte stream. */
function safeContentType(value: string): string {
  return /^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=("[^"\r\n]*"|[\w.+-]+))*$/.test(value)
    ? value
    : 'application/octet-stream';
}

/** `attachment` with an ASCII fallback name and the exact name in RFC 5987 form. */
function contentDisposition(fileName: string): string {
  const name = fileName === '' ? 'file' : fileName;
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  // RFC 5987 attr-chars: encodeURIComponent leaves ' ( ) * as they are, which are not allowed there.
  const exact = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase(),
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/**
 * `?id=` names one entry: any filter, page or cursor beside it would be ignored, so it is refused
 * (unknown or ignored parameters are never silent). `mode` may come with it.
 */
function refuseBesideId(query: Record<string, unknown>): void {
  const others = Object.keys(query).filter((k) => k !== 'id' && k !== 'mode' && query[k] !== undefined);
  if (others.length > 0) {
    throw new AppError('validation_error', `Query parameter "id" cannot be combined with "${others[0]}".`, {
      details: others.map((k) => detail('/' + k, 'cannot be combined with id', String(query[k]))),
    });
  }
}

const unknownEntry = (id: string) => new AppError('not_found', `Request "${id}" is not in the history.`);

/** Registers the history routes on `app` (an encapsulated scope under /api/v2). */
/** The history routes, relative to /endpoints/:ep (endpoint-scope.ts). */
export async function historyApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'events' | 'now' | 'store'>,
): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  /** Every history route reads (or deletes) the entries the caller has already been answered for. */
  const fromHistory = { endpoint: { history: true as const } };

  /** A Postgres regex can fail where JavaScript's compiled (the flavours differ): that is the caller's 400. */
  async function withRegexErrors<T>(filter: HistoryFilter, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (filter.path && 'regex' in filter.path && (err as { code?: string }).code === '2201B') {
        throw new AppError('validation_error', 'Query parameter "path" is not a valid regular expression.', {
          details: [detail('/path', (err as Error).message, `/${filter.path.regex}/`)],
        });
      }
      throw err;
    }
  }

  /** Deletes one entry and tells the endpoint's dashboards (`DELETE …/requests/:id` and `?id=`). */
  async function deleteOne(ep: string, id: string) {
    if (!(await ctx.store.deleteHistoryEntry(ep, id))) throw unknownEntry(id);
    ctx.events.publish({ endpoint: ep, name: 'requests.deleted', data: { count: 1, ids: [id] } });
    return { id, deleted: true as const };
  }

  api.get(
    '/requests',
    {
      config: fromHistory,
      schema: {
        tags: TAGS,
        summary: 'List recorded requests, newest first',
        params: EndpointParams,
        description: 'With `id`, answers that one entry alone (verbose, not wrapped in `data`).',
        querystring: ListQuery,
        response: { 200: Type.Union([RequestList, RequestRecord]), ...errorResponses },
      },
    },
    async (request, reply) => {
      const ep = request.endpoint.name;
      if (request.query.id !== undefined) {
        refuseBesideId(request.query);
        const entry = await ctx.store.getHistory(ep, request.query.id);
        if (!entry) throw unknownEntry(request.query.id);
        return historyRecord(entry, true);
      }
      const { limit, cursor, mode, format = 'json', ...filters } = request.query;
      if (cursor !== undefined && !decodeCursor(cursor)) {
        throw new AppError('validation_error', 'Query parameter "cursor" is not a cursor of this API.', {
          details: [detail('/cursor', 'is not a cursor of this API', cursor)],
        });
      }
      const filter = toFilter(filters, ctx.now());
      if (format !== 'json') {
        const most = exportLimit(limit, mode, ctx.config.historyExportMax);
        const body = await withRegexErrors(filter, () =>
          historyExport(ctx.store, {
            endpoint: ep,
            filter,
            limit: most,
            cursor,
            format,
            origin: harOrigin(ctx.config, request.endpoint, request.protocol),
            creator: { name: 'Mockingbird', version: VERSION },
          }),
        );
        const file = `${ep}-requests.${format === 'har' ? 'har' : 'ndjson'}`;
        // A stream, not the JSON the route's typed replies describe: sent through the untyped reply.
        return (reply as FastifyReply)
          .header('content-type', EXPORT_TYPES[format])
          .header('content-disposition', `inline; filename="${file}"`)
          .send(body);
      }
      const size = pageSize(limit);
      const page = await withRegexErrors(filter, () => ctx.store.listHistory(ep, filter, size, cursor));
      return {
        data: page.data.map((e) => historyRecord(e, mode === 'verbose')),
        pagination:
          page.hasMore && page.cursor !== null
            ? { cursor: page.cursor, hasMore: true, limit: size }
            : { hasMore: false, limit: size },
      };
    },
  );

  api.delete(
    '/requests',
    {
      config: fromHistory,
      schema: {
        tags: TAGS,
        summary: 'Delete recorded requests matching the filters (all of them with no filter)',
        description: 'With `id`, deletes that one entry and answers `{ id, deleted }`.',
        params: EndpointParams,
        querystring: DeleteQuery,
        response: { 200: Type.Union([DeletedMany, DeletedOne]), ...errorResponses },
      },
    },
    async (request) => {
      const ep = request.endpoint.name;
      const { id } = request.query;
      if (id !== undefined) {
        refuseBesideId(request.query);
        return deleteOne(ep, id);
      }
      const filter = toFilter(request.query, ctx.now());
      const count = await withRegexErrors(filter, () => ctx.store.deleteHistory(ep, filter));
      ctx.events.publish({ endpoint: ep, name: 'requests.deleted', data: { count } });
      return { deleted: true as const, count };
    },
  );

  api.get(
    '/requests/:id',
    {
      config: fromHistory,
      schema: {
        tags: TAGS,
        summary: 'One recorded request, with headers and bodies',
        params: RequestParams,
        querystring: GetQuery,
        response: { 200: RequestRecord, ...errorResponses },
      },
    },
    async (request) => {
      const ep = request.endpoint.name;
      const entry = await ctx.store.getHistory(ep, request.params.id);
      if (!entry) throw unknownEntry(request.params.id);
      return historyRecord(entry, true);
    },
  );

  api.delete(
    '/requests/:id',
    {
      config: fromHistory,
      schema: {
        tags: TAGS,
        summary: 'Delete one recorded request and its files',
        params: RequestParams,
        querystring: NoQuery,
        response: { 200: DeletedOne, ...errorResponses },
      },
    },
    async (request) => {
      const ep = request.endpoint.name;
      const { id } = request.params;
      return deleteOne(ep, id);
    },
  );

  // Untyped (the body is the file's bytes, not JSON): the schema still validates and documents it.
  const fileSchema = {
    tags: TAGS,
    summary: 'Download a file uploaded with a recorded multipart request',
    params: FileParams,
    querystring: NoQuery,
    response: errorResponses,
  };
  // The bytes are whatever a stranger uploaded to the mock: never let a browser render them on the
  // dashboard's origin (attachment, no sniffing, sandboxed if opened anyway).
  const sendFile = (reply: FastifyReply, file: HistoryFile) =>
    reply
      .header('content-type', safeContentType(file.contentType))
      .header('content-disposition', contentDisposition(file.fileName))
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(file.data);

  app.get<{ Params: FileParams }>(
    '/requests/:id/files/:fieldName',
    { config: fromHistory, schema: fileSchema },
    async (request, reply) => {
      const ep = request.endpoint.name;
      const { id, fieldName } = request.params;
      const file = await ctx.store.getHistoryFile(ep, id, fieldName);
      if (!file) throw new AppError('not_found', `Request "${id}" has no file in the field "${fieldName}".`);
      return sendFile(reply, file);
    },
  );

  app.get<{ Params: Static<typeof RequestParams>; Querystring: DownloadQuery }>(
    '/requests/:id/multipart/download',
    {
      config: fromHistory,
      schema: {
        ...fileSchema,
        summary: 'Download a file of a recorded multipart request, or one its rule callout sent',
        params: RequestParams,
        querystring: DownloadQuery,
      },
    },
    async (request, reply) => {
      const ep = request.endpoint.name;
      const { id } = request.params;
      const { fieldName, component = 'Request' } = request.query;
      const missing = () =>
        new AppError('not_found', `Request "${id}" has no ${component} file in the field "${fieldName}".`);
      if (component === 'CalloutRequest') {
        // A callout sends the files of the request it forwards: the same bytes, stored once.
        const entry = await ctx.store.getHistory(ep, id);
        if (!entry?.callout?.request.files.some((f) => f.name === fieldName)) throw missing();
      }
      const file = await ctx.store.getHistoryFile(ep, id, fieldName);
      if (!file) throw missing();
      return sendFile(reply, file);
    },
  );
}
