/**
 * Endpoint state (SPEC §4), relative to /api/v2, under /endpoints/:ep/state:
 *   GET    ?limit&offset&type&keyPrefix  { data: [{ type, key, value, lastModified }], pagination }
 *   PUT    { items: [{ type, key, value }] }            { created, updated }
 *   DELETE { all: true } | { items: [{ type, key }] }   { deleted: true, count }
 *   GET    /:type/:key                                  the item (404 when unknown)
 *   DELETE /:type/:key                                  { key, deleted: true } (404 when unknown)
 * `type` is counter|string|list in any letter case, answered in lower case. Values are held to the
 * state bounds (STATE_MAX_ITEMS, STATE_MAX_VALUE, STATE_MAX_LIST, keys of at most 256 characters).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ApiDeps } from './deps.js';
import { AppError } from '../errors.js';
import { detail, validationError } from '../schema/index.js';
import { deleteStateItem, deleteStateItems, putState, stateItemsOf } from '../admin/index.js';
import { parseStateType, STATE_MAX_KEY, stateLimits } from '../state/index.js';
import type { StateItem, StateRef, StateType } from '../store/index.js';
import { EndpointParams, NoQuery } from './schemas/common.js';

const TAGS = ['State'];

const TypeName = Type.String({
  minLength: 1,
  maxLength: 20,
  description: 'counter, string or list, in any letter case',
  examples: ['counter'],
});
const Key = Type.String({ minLength: 1, maxLength: STATE_MAX_KEY });

export const Item = Type.Object(
  {
    type: Type.String({ enum: ['counter', 'string', 'list'] }),
    key: Type.String(),
    value: Type.Unknown(),
    lastModified: Type.Integer({ description: 'epoch milliseconds' }),
  },
  { title: 'StateItem' },
);

const ItemParams = Type.Object({
  ep: EndpointParams.properties.ep,
  type: TypeName,
  key: Key,
});

const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    type: Type.Optional(TypeName),
    keyPrefix: Type.Optional(Type.String({ maxLength: STATE_MAX_KEY })),
  },
  { additionalProperties: false },
);

const PutBody = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          type: TypeName,
          key: Key,
          value: Type.Unknown({
            description: 'counter: a whole number from 0; list: an array; string: any JSON',
          }),
          lastModified: Type.Optional(
            Type.Integer({
              description: 'read-only, as GET answers it: ignored, so an item read can be written back',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { maxItems: 1000, description: 'an empty list changes nothing' },
    ),
  },
  { additionalProperties: false },
);

const DeleteBody = Type.Union([
  Type.Object({ all: Type.Literal(true) }, { additionalProperties: false }),
  Type.Object(
    {
      items: Type.Array(Type.Object({ type: TypeName, key: Key }, { additionalProperties: false }), {
        maxItems: 1000,
        description: 'an empty list deletes nothing',
      }),
    },
    { additionalProperties: false },
  ),
]);

type EpParams = { Params: { ep: string } };
type ItemRoute = { Params: { ep: string; type: string; key: string } };

function typeAt(raw: string, path: string): StateType {
  const t = parseStateType(raw);
  if (!t) throw validationError([detail(path, 'A state type is counter, string or list', raw)]);
  return t;
}

function itemOut(i: StateItem) {
  return { type: i.type, key: i.key, value: i.value, lastModified: i.lastModified };
}

/** The state routes, relative to /endpoints/:ep (endpoint-scope.ts). */
export async function stateApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'events' | 'fence' | 'now' | 'store'>,
): Promise<void> {
  const limits = stateLimits(ctx.config);
  const base = '/state';
  const one = `${base}/:type/:key`;

  app.get<EpParams & { Querystring: { limit?: number; offset?: number; type?: string; keyPrefix?: string } }>(
    base,
    {
      schema: {
        tags: TAGS,
        summary: "The endpoint's state, a page at a time (type, then key order)",
        params: EndpointParams,
        querystring: ListQuery,
        response: {
          200: Type.Object({
            data: Type.Array(Item),
            pagination: Type.Object({
              total: Type.Integer(),
              limit: Type.Integer(),
              offset: Type.Integer(),
              hasMore: Type.Boolean(),
            }),
          }),
        },
      },
    },
    async (request) => {
      const ep = request.endpoint;
      const q = request.query;
      const limit = q.limit ?? 20;
      const offset = q.offset ?? 0;
      const query: Parameters<typeof ctx.store.pageState>[1] = { limit, offset };
      if (q.type !== undefined) query.type = typeAt(q.type, '/type');
      if (q.keyPrefix !== undefined) query.keyPrefix = q.keyPrefix;
      const { items, total } = await ctx.store.pageState(ep.name, query);
      return {
        data: items.map(itemOut),
        pagination: { total, limit, offset, hasMore: offset + items.length < total },
      };
    },
  );

  app.put<EpParams & { Body: { items: { type: string; key: string; value: unknown }[] } }>(
    base,
    {
      config: { endpoint: { writable: true } },
      schema: {
        tags: TAGS,
        summary: 'Create or replace state items',
        params: EndpointParams,
        querystring: NoQuery,
        body: PutBody,
        response: { 200: Type.Object({ created: Type.Integer(), updated: Type.Integer() }) },
      },
    },
    async (request) => putState(ctx, request.endpoint, stateItemsOf(limits, request.body.items)),
  );

  app.delete<EpParams & { Body: { all?: true; items?: { type: string; key: string }[] } }>(
    base,
    {
      schema: {
        tags: TAGS,
        summary: 'Delete every state item (`{ "all": true }`) or the ones listed',
        params: EndpointParams,
        querystring: NoQuery,
        body: DeleteBody,
        response: { 200: Type.Object({ deleted: Type.Literal(true), count: Type.Integer() }) },
      },
    },
    async (request) => {
      const body = request.body;
      const refs: StateRef[] | undefined = body.items?.map((it, i) => ({
        type: typeAt(it.type, `/items/${i}/type`),
        key: it.key,
      }));
      return { deleted: true as const, count: await deleteStateItems(ctx, request.endpoint, refs) };
    },
  );

  app.get<ItemRoute>(
    one,
    {
      schema: {
        tags: TAGS,
        summary: 'One state item',
        params: ItemParams,
        querystring: NoQuery,
        response: { 200: Item },
      },
    },
    async (request) => {
      const ep = request.endpoint;
      const type = typeAt(request.params.type, '/type');
      const item = await ctx.store.getState(ep.name, type, request.params.key);
      if (!item) throw notFound(ep.name, type, request.params.key);
      return itemOut(item);
    },
  );

  app.delete<ItemRoute>(
    one,
    {
      schema: {
        tags: TAGS,
        summary: 'Delete one state item',
        params: ItemParams,
        querystring: NoQuery,
        response: { 200: Type.Object({ key: Type.String(), deleted: Type.Literal(true) }) },
      },
    },
    async (request) => {
      const ep = request.endpoint;
      const type = typeAt(request.params.type, '/type');
      if (!(await deleteStateItem(ctx, ep, type, request.params.key)))
        throw notFound(ep.name, type, request.params.key);
      return { key: request.params.key, deleted: true as const };
    },
  );
}

function notFound(ep: string, type: StateType, key: string): AppError {
  return new AppError('not_found', `Endpoint "${ep}" has no ${type} "${key}".`);
}
