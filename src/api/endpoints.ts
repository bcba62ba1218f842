/**
 * Endpoints and their settings (SPEC §4, §10), relative to /api/v2:
 *   POST   /endpoints                 create (admin)            GET /endpoints        list (a scoped key: its own)
 *   GET    /endpoints/:ep             one, with its settings    DELETE /endpoints/:ep  delete (admin; not `echo`)
 *   GET    /endpoints/:ep/settings    every setting, defaults filled in
 *   PATCH  /endpoints/:ep/settings    merge; `plan` is admin-only and must name a known plan
 * A scoped key is refused (403) before an unknown endpoint is reported (404), so that it learns nothing
 * about other endpoints (endpoint-scope.ts). Creating, deleting and changing settings are commands
 * (src/admin/); these routes are their adapters.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ApiDeps } from './deps.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { changeSettings, createEndpoint, deleteEndpoint } from '../admin/index.js';
import { isBuiltIn } from '../endpoint/index.js';
import {
  effectiveSettings,
  Settings,
  SettingsPatch,
  type SettingsPatch as SettingsPatchT,
} from '../mock/index.js';
import { planNameOf, plansFor } from '../plans.js';
import type { EndpointRecord } from '../store/index.js';
import { requireAdmin } from './auth.js';
import { DataOf, EndpointParams, NoQuery } from './schemas/common.js';

const TAGS = ['Endpoints'];

export const Endpoint = Type.Object(
  {
    name: Type.String({ examples: ['shop'] }),
    createdAt: Type.String({ description: 'ISO 8601 UTC' }),
    plan: Type.String({ examples: ['unlimited'] }),
    builtIn: Type.Boolean({ description: 'true for `echo`, which cannot be deleted' }),
    host: Type.String({ description: 'the virtual host that reaches it', examples: ['shop.localhost'] }),
    path: Type.String({ description: 'the path form that reaches it', examples: ['/e/shop/'] }),
    settings: Type.Optional(Settings),
    requestCount: Type.Optional(
      Type.Integer({ description: 'requests in its history (in the list only)', examples: [42] }),
    ),
  },
  { title: 'Endpoint' },
);

const EndpointInput = Type.Object(
  { name: Type.String({ maxLength: 100, examples: ['shop'] }) },
  { additionalProperties: false },
);

/** An endpoint as the API shows it, with its settings (defaults filled in) when asked. */
function toJson(config: Config, ep: EndpointRecord, withSettings: boolean) {
  const plan = planNameOf(config, ep);
  return {
    name: ep.name,
    createdAt: new Date(ep.createdAt).toISOString(),
    plan,
    builtIn: isBuiltIn(ep),
    host: `${ep.name}.${config.baseDomain}`,
    path: `/e/${ep.name}/`,
    ...(withSettings ? { settings: effectiveSettings(ep.settings, plan) } : {}),
  };
}

/** `POST /endpoints` and `GET /endpoints`. */
export async function endpointsApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'domains' | 'events' | 'fence' | 'now' | 'store'>,
): Promise<void> {
  plansFor(ctx.config); // read and validated now: a bad PLANS_FILE stops the start

  app.post<{ Body: { name: string } }>(
    '/endpoints',
    {
      schema: {
        tags: TAGS,
        summary: 'Create an endpoint (admin key)',
        description: 'Reachable at once as `<name>.<BASE_DOMAIN>` and `/e/<name>/`. It gets DEFAULT_PLAN.',
        body: EndpointInput,
        querystring: NoQuery,
        response: { 201: Endpoint },
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      const rec = await createEndpoint(ctx, request.body.name);
      if (!rec) throw new AppError('conflict', `Endpoint "${request.body.name}" already exists.`);
      return reply.code(201).send(toJson(ctx.config, rec, false));
    },
  );

  app.get(
    '/endpoints',
    {
      schema: {
        tags: TAGS,
        summary: 'List endpoints (a scoped key sees its own only)',
        querystring: NoQuery,
        response: { 200: DataOf(Type.Array(Endpoint)) },
      },
    },
    async (request) => {
      const scope = request.principal?.endpoint ?? null;
      const all =
        scope === null
          ? await ctx.store.listEndpoints()
          : [await ctx.store.getEndpoint(scope)].filter((e): e is EndpointRecord => e !== undefined);
      // The dashboard's list shows each endpoint's history size: one grouped count for all of them
      // (a count per endpoint held the API for 12-20 s with 10,001 endpoints).
      const counts =
        scope === null
          ? await ctx.store.countHistoryByEndpoint()
          : new Map([[scope, await ctx.store.countHistory(scope, {})]]);
      return {
        data: all.map((e) => ({ ...toJson(ctx.config, e, false), requestCount: counts.get(e.name) ?? 0 })),
      };
    },
  );
}

/** One endpoint and its settings, relative to /endpoints/:ep (endpoint-scope.ts). */
export async function endpointApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'domains' | 'events' | 'fence' | 'now' | 'store'>,
): Promise<void> {
  app.get<{ Params: { ep: string } }>(
    '',
    {
      schema: {
        tags: TAGS,
        summary: 'One endpoint, with its settings',
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: Endpoint },
      },
    },
    async (request) => toJson(ctx.config, request.endpoint, true),
  );

  app.delete<{ Params: { ep: string } }>(
    '',
    {
      config: { endpoint: { admin: true } },
      schema: {
        tags: TAGS,
        summary: 'Delete an endpoint with its rules, history, files, state and keys (admin key)',
        description: 'The built-in `echo` endpoint cannot be deleted (403).',
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: Type.Object({ name: Type.String(), deleted: Type.Literal(true) }) },
      },
    },
    async (request) => {
      await deleteEndpoint(ctx, request.endpoint);
      return { name: request.endpoint.name, deleted: true as const };
    },
  );

  app.get<{ Params: { ep: string } }>(
    '/settings',
    {
      schema: {
        tags: TAGS,
        summary: "An endpoint's settings, defaults filled in",
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: Settings },
      },
    },
    async (request) => effectiveSettings(request.endpoint.settings, planNameOf(ctx.config, request.endpoint)),
  );

  app.patch<{ Params: { ep: string }; Body: SettingsPatchT }>(
    '/settings',
    {
      config: { endpoint: { writable: true } },
      schema: {
        tags: TAGS,
        summary: "Change an endpoint's settings (merged; nested objects field by field)",
        description:
          'Answers the settings after the change. `plan` may be changed by an admin key only; ' +
          '`defaultResponse: null` removes the custom default response.',
        params: EndpointParams,
        querystring: NoQuery,
        body: SettingsPatch,
        response: { 200: Settings },
      },
    },
    async (request) =>
      changeSettings(ctx, request.endpoint, request.body, { requireAdmin: () => requireAdmin(request) }),
  );
}
