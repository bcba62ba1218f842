/**
 * API key routes (SPEC §4), relative to /api/v2, admin key only:
 *   POST /keys {endpoint?} → 201 {id, key, endpoint}: the clear key is shown in this answer only
 *   GET /keys → ids, scopes and creation times (never a key or its hash) · DELETE /keys/:id revokes
 * The last admin key cannot be revoked (409): nobody could manage the service any more.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ApiDeps } from './deps.js';
import { AppError } from '../errors.js';
import { requireAdmin } from './auth.js';
import { Nullable } from '../schema/index.js';
import { createKey, listKeys, revokeKey } from './keys.js';
import { DataOf, Deleted, NoQuery } from './schemas/common.js';

const TAGS = ['API keys'];

export const KeyInfo = Type.Object(
  {
    id: Type.String(),
    endpoint: Nullable(Type.String({ description: 'null: an admin key' })),
    createdAt: Type.String({ description: 'ISO 8601 UTC' }),
  },
  { title: 'ApiKey' },
);

export const NewKey = Type.Object(
  {
    id: Type.String(),
    key: Type.String({ description: 'mb_…; shown only in this answer', examples: ['mb_3q…'] }),
    endpoint: Nullable(Type.String()),
  },
  { title: 'NewApiKey' },
);

export async function keysRoutesApi(app: FastifyInstance, ctx: Pick<ApiDeps, 'store'>): Promise<void> {
  app.post<{ Body: { endpoint?: string | null } }>(
    '/keys',
    {
      schema: {
        tags: TAGS,
        summary: 'Create an API key (admin key)',
        description:
          'With `endpoint`, the key may act on that endpoint only; without it (or null), it is another ' +
          'admin key. An unknown endpoint is a 404.',
        querystring: NoQuery,
        body: Type.Object(
          { endpoint: Type.Optional(Nullable(Type.String({ maxLength: 100, examples: ['shop'] }))) },
          { additionalProperties: false },
        ),
        response: { 201: NewKey },
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      const endpoint = request.body.endpoint ?? null;
      if (endpoint !== null && !(await ctx.store.getEndpoint(endpoint)))
        throw new AppError('not_found', `Endpoint "${endpoint}" does not exist.`);
      return reply.code(201).send(await createKey(ctx.store, endpoint));
    },
  );

  app.get(
    '/keys',
    {
      schema: {
        tags: TAGS,
        summary: 'List API keys (admin key); keys themselves are never shown',
        querystring: NoQuery,
        response: { 200: DataOf(Type.Array(KeyInfo)) },
      },
    },
    async (request) => {
      requireAdmin(request);
      return { data: await listKeys(ctx.store) };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/keys/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Revoke an API key (admin key)',
        description: 'The last admin key cannot be revoked (409).',
        params: Type.Object({ id: Type.String() }),
        querystring: NoQuery,
        response: { 200: Deleted },
      },
    },
    async (request) => {
      requireAdmin(request);
      const { id } = request.params;
      await revokeKey(ctx.store, id);
      return { id, deleted: true as const };
    },
  );
}
