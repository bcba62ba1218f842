/**
 * Record and replay (SPEC §7 "Recording"), relative to /api/v2:
 *   POST /endpoints/:ep/requests/:id/rule   the recorded exchange as a mock rule at the bottom
 * Any recorded exchange will do (proxied, tunnelled, answered by a rule or the default). What the
 * rule holds, and what cannot be replayed (409), is decided in src/mock/recording.ts, which the proxy's
 * `proxy.record` uses too.
 */
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from './deps.js';
import { sensitiveHeaders } from '../history/index.js';
import { AppError } from '../errors.js';
import { appendRecordedRule } from '../admin/index.js';
import { recordedRule, Rule } from '../mock/index.js';
import { errorResponses, RequestParams } from './history-schemas.js';
import { ErrorBody, NoQuery } from './schemas/common.js';

/** The recording route, relative to /endpoints/:ep (endpoint-scope.ts). */
export async function recordingApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'events' | 'fence' | 'store'>,
): Promise<void> {
  const redacted = sensitiveHeaders(ctx.config);

  app.post<{ Params: { ep: string; id: string } }>(
    '/requests/:id/rule',
    {
      config: { endpoint: { history: true, writable: true } },
      schema: {
        tags: ['Request history'],
        summary: 'Turn a recorded exchange into a mock rule at the bottom',
        description:
          'The rule answers the same method and path (`path` `equals`, the query left out) with the recorded ' +
          'status, headers (less hop-by-hop ones, Content-Length, Date and the headers the history keeps ' +
          'redacted) and body. 409 when the recorded answer cannot be replayed as it was: a body cut at ' +
          'CAPTURE_LIMIT, a compressed body, a method rules cannot name.',
        params: RequestParams,
        querystring: NoQuery,
        response: { 201: Rule, ...errorResponses, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const ep = request.endpoint;
      const entry = await ctx.store.getHistory(ep.name, request.params.id);
      if (!entry) throw new AppError('not_found', `Request "${request.params.id}" is not in the history.`);
      const data = recordedRule(
        {
          id: entry.id,
          method: entry.method,
          path: entry.path,
          status: entry.status,
          headers: entry.responseHeaders,
          body: entry.responseBody,
          truncated: entry.responseBodyTruncated,
          source: 'history',
        },
        redacted,
      );
      const rule = await appendRecordedRule(ctx, ep, data);
      return reply.code(201).send(rule);
    },
  );
}
