/**
 * Template preview, for the dashboard's rule editor (relative to /api/v2):
 *   POST /endpoints/:ep/templates/preview  { template, requestId?, rule? }
 *        → { output | error, problems, matched?, pathParams }
 * Renders `template` against the recorded request `requestId` (a blank `GET /` without one), as a
 * rule's templated body would be; `rule` (the rule being edited) says whether that request matches it
 * and supplies its path parameters. Nothing is answered, recorded or changed (state helpers see none).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ApiDeps } from './deps.js';
import { AppError } from '../errors.js';
import { parseBody, parseQuery, type CapturedRequest } from '../http/index.js';
import { previewTemplate } from '../mock/index.js';
import type { HistoryEntry } from '../store/index.js';
import { EndpointParams, ErrorBody, NoQuery } from './schemas/common.js';

const PreviewBody = Type.Object(
  {
    template: Type.String({ maxLength: 256 * 1024, description: 'Handlebars text, as in a rule body.' }),
    requestId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "A recorded request of this endpoint's history.",
      }),
    ),
    rule: Type.Optional(
      Type.Unknown({
        description: 'The rule being edited: does the request match it, and its path parameters.',
      }),
    ),
  },
  { additionalProperties: false },
);

const PreviewAnswer = Type.Object({
  output: Type.Optional(Type.String()),
  error: Type.Optional(
    Type.String({ description: 'Why the template could not be rendered (a rule would answer 561).' }),
  ),
  problems: Type.Array(Type.String()),
  matched: Type.Optional(Type.Boolean()),
  pathParams: Type.Record(Type.String(), Type.String()),
});

/** A recorded request as the rules step would have seen it (headers as stored: redacted ones stay so). */
async function requestOf(e: HistoryEntry | undefined): Promise<CapturedRequest> {
  const method = e?.method ?? 'GET';
  const path = e?.path ?? '/';
  const headers = e?.requestHeaders ?? {};
  const contentType = headers['content-type'];
  const rawBody = Buffer.from(e?.requestBody ?? '', 'utf8');
  const body = await parseBody(method, contentType, rawBody);
  const q = path.indexOf('?');
  return {
    id: e?.id ?? 'preview',
    receivedAt: e?.createdAt ?? Date.now(),
    method,
    protocol: 'http',
    httpVersion: e?.httpVersion ?? '1.1',
    host: headers['host'] ?? '',
    path,
    pathname: q === -1 ? path : path.slice(0, q),
    ip: e?.ip ?? '127.0.0.1',
    headers,
    duplicateHeaders: [],
    rawHeaders: [],
    query: parseQuery(path),
    contentType,
    rawBody,
    body,
    files: [],
    warnings: [],
  };
}

/** The preview route, relative to /endpoints/:ep (endpoint-scope.ts). */
export async function templatePreviewApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'now' | 'store'>,
): Promise<void> {
  app.post<{ Params: Static<typeof EndpointParams>; Body: Static<typeof PreviewBody> }>(
    '/templates/preview',
    {
      schema: {
        tags: ['Rules'],
        summary: 'Render a template against a recorded request (nothing is answered or changed)',
        params: EndpointParams,
        querystring: NoQuery,
        body: PreviewBody,
        response: { 200: PreviewAnswer, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      const ep = request.endpoint;
      const { template, requestId, rule } = request.body;
      let entry: HistoryEntry | undefined;
      if (requestId !== undefined) {
        entry = await ctx.store.getHistory(ep.name, requestId);
        if (!entry) throw new AppError('not_found', `Request "${requestId}" is not in the history.`);
      }
      return previewTemplate(ctx, ep, {
        template,
        request: await requestOf(entry),
        ...(rule !== undefined ? { rule } : {}),
      });
    },
  );
}
