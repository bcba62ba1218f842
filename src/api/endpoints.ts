/**
 * Endpoints and their settings (SPEC §4, §10), relative to /api/v2:
 *   POST   /endpoints                 create (admin)            GET /endpoints        list (a scoped key: its own)
 *   GET    /endpoints/:ep             one, with its settings    DELETE /endpoints/:ep  delete (admin; not `echo`)
 *   GET    /endpoints/:ep/settings    every setting, defaults filled in
 *   PATCH  /endpoints/:ep/settings    merge; `plan` is admin-only and must name a known plan
 * A scoped key is refused (403) before an unknown endpoint is reported (404), so that it learns nothing
 * about other endpoints.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import {
  claimedDomain,
  customDomainProblem,
  endpointNameProblem,
  isBuiltIn,
  normalizeDomain,
} from '../endpoint/index.js';
import {
  effectiveSettings,
  mergeSettings,
  Settings,
  SettingsPatch,
  type SettingsPatch as SettingsPatchT,
} from '../mock/index.js';
import { planNameOf, planOf, plansFor } from '../plans.js';
import { redactTargetUrl, targetProblem } from '../outbound/index.js';
import { MTLS_NEEDS_TLS, tlsConfigured } from '../mtls/index.js';
import { detail, validationError } from '../schema/index.js';
import type { EndpointRecord, JsonObject } from '../store/index.js';
import { requireAdmin } from './auth.js';
import { loadEndpoint } from './endpoint-access.js';
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

/** Refuses changes to the built-in `echo` endpoint, which always echoes. */
export function refuseBuiltIn(ep: EndpointRecord): void {
  if (isBuiltIn(ep))
    throw new AppError(
      'forbidden',
      `The built-in "${ep.name}" endpoint always echoes; it cannot be changed.`,
    );
}

/** One claim check and write at a time, so that two endpoints cannot both win one domain. */
let claiming: Promise<unknown> = Promise.resolve();

/**
 * Writes settings that may set a custom domain: 409 when another endpoint has the domain set
 * (enabled or not), then the write, then the dispatch map.
 */
async function claimDomain(
  ctx: AppContext,
  name: string,
  stored: JsonObject,
  write: () => Promise<unknown>,
): Promise<void> {
  const c = stored['customDomain'] as { domain?: string } | undefined;
  const domain = c?.domain;
  if (domain === undefined) {
    await write();
    ctx.domains.set(name, undefined);
    return;
  }
  const run = claiming.then(async () => {
    for (const other of await ctx.store.listEndpoints()) {
      const theirs = (other.settings['customDomain'] as { domain?: unknown } | undefined)?.domain;
      if (other.name !== name && typeof theirs === 'string' && normalizeDomain(theirs) === domain)
        throw new AppError(
          'conflict',
          `The domain "${domain}" is already the custom domain of another endpoint.`,
        );
    }
    await write();
    ctx.domains.set(name, claimedDomain(stored));
  });
  claiming = run.catch(() => undefined);
  await run;
}

/**
 * Creates an endpoint with DEFAULT_PLAN (400 for a bad name); undefined when it already exists.
 * Shared by `POST /endpoints` and the configuration file loader.
 */
export async function createEndpoint(ctx: AppContext, name: string): Promise<EndpointRecord | undefined> {
  const problem = endpointNameProblem(name);
  if (problem) throw validationError([detail('/name', problem, name)]);
  const rec: EndpointRecord = { name, createdAt: ctx.now(), settings: { plan: ctx.config.defaultPlan } };
  return (await ctx.store.createEndpoint(rec)) ? rec : undefined;
}

export interface SettingsChange {
  /** Throws unless the caller may change the plan or the custom domain (an admin key). */
  requireAdmin: () => void;
  /** Replace the stored settings (keeping the plan unless the patch names one) instead of merging. */
  replace?: boolean;
}

/**
 * Checks a settings patch against the endpoint's plan and the proxy target rules, stores it (merged,
 * or replacing the stored settings) and tells the request path and the dashboards. Answers the
 * settings after the change. Shared by `PATCH …/settings` and the configuration file loader.
 */
export async function changeSettings(
  ctx: AppContext,
  ep: EndpointRecord,
  patch: SettingsPatchT,
  how: SettingsChange,
): Promise<Settings> {
  const plans = plansFor(ctx.config);
  const currentPlan = planNameOf(ctx.config, ep);
  if (patch.plan !== undefined && patch.plan !== currentPlan) {
    // A key scoped to the endpoint must not lift its own limits.
    how.requireAdmin();
    if (!Object.hasOwn(plans, patch.plan))
      throw validationError([
        detail('/plan', `Unknown plan; known plans: ${Object.keys(plans).join(', ')}`, patch.plan),
      ]);
  }
  const domain = patch.customDomain?.domain;
  if (patch.customDomain !== undefined) {
    // A claimed domain takes every request for that host, the API's included: operators only.
    how.requireAdmin();
    const problem =
      typeof domain === 'string' ? customDomainProblem(domain, ctx.config.baseDomain) : undefined;
    if (problem !== undefined) throw validationError([detail('/customDomain/domain', problem, domain)]);
  }
  const target = patch.proxy?.targetUrl;
  const targetIssue = typeof target === 'string' ? targetProblem(target) : undefined;
  if (targetIssue !== undefined)
    throw validationError([
      detail('/proxy/targetUrl', `Not a proxy target: ${targetIssue}`, redactTargetUrl(target!)),
    ]);
  // Without TLS no client certificate ever reaches the server: the setting could only refuse everything.
  if (patch.mtls?.enabled === true && !tlsConfigured(ctx.config))
    throw validationError([detail('/mtls/enabled', MTLS_NEEDS_TLS, true)], MTLS_NEEDS_TLS);
  const base = how.replace ? { plan: currentPlan } : ep.settings;
  const stored = mergeSettings(
    base,
    typeof domain === 'string'
      ? { ...patch, customDomain: { ...patch.customDomain, domain: normalizeDomain(domain) } }
      : patch,
  );
  const updated: EndpointRecord = { ...ep, settings: stored };
  const settings = effectiveSettings(stored, planNameOf(ctx.config, updated));
  if (settings.security.enabled && settings.security.headerKey === '')
    throw validationError([
      detail('/security/headerKey', 'Required when security is enabled', settings.security.headerKey),
    ]);
  const plan = planOf(ctx.config, updated);
  if (!plan.proxy && typeof patch.proxy?.targetUrl === 'string')
    throw new AppError('plan_limit', `The plan "${plan.name}" does not include the HTTP proxy.`);
  if (!plan.tunnel && patch.localTunnel === true)
    throw new AppError('plan_limit', `The plan "${plan.name}" does not include the local tunnel.`);
  if (settings.customDomain.enabled && settings.customDomain.domain === undefined)
    throw validationError([detail('/customDomain/domain', 'Required when the custom domain is enabled', '')]);
  await claimDomain(ctx, ep.name, stored, () => ctx.store.updateEndpointSettings(ep.name, stored));
  ctx.endpoints.invalidate(ep.name);
  ctx.events.publish({ endpoint: ep.name, name: 'settings.updated', data: settings });
  return settings;
}

export async function endpointsApi(app: FastifyInstance, ctx: AppContext): Promise<void> {
  plansFor(ctx.config); // read and validated now: a bad PLANS_FILE stops the start

  function toJson(ep: EndpointRecord, withSettings: boolean) {
    const plan = planNameOf(ctx.config, ep);
    return {
      name: ep.name,
      createdAt: new Date(ep.createdAt).toISOString(),
      plan,
      builtIn: isBuiltIn(ep),
      host: `${ep.name}.${ctx.config.baseDomain}`,
      path: `/e/${ep.name}/`,
      ...(withSettings ? { settings: effectiveSettings(ep.settings, plan) } : {}),
    };
  }

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
      return reply.code(201).send(toJson(rec, false));
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
      return { data: all.map((e) => ({ ...toJson(e, false), requestCount: counts.get(e.name) ?? 0 })) };
    },
  );

  app.get<{ Params: { ep: string } }>(
    '/endpoints/:ep',
    {
      schema: {
        tags: TAGS,
        summary: 'One endpoint, with its settings',
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: Endpoint },
      },
    },
    async (request) => toJson(await loadEndpoint(ctx, request, request.params.ep), true),
  );

  app.delete<{ Params: { ep: string } }>(
    '/endpoints/:ep',
    {
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
      requireAdmin(request);
      const ep = await loadEndpoint(ctx, request, request.params.ep);
      if (isBuiltIn(ep))
        throw new AppError('forbidden', `The built-in "${ep.name}" endpoint cannot be deleted.`);
      const deleted = await ctx.store.deleteEndpoint(ep.name);
      ctx.endpoints.invalidate(ep.name);
      ctx.domains.set(ep.name, undefined);
      if (!deleted) throw new AppError('not_found', `Endpoint "${ep.name}" does not exist.`);
      return { name: ep.name, deleted: true as const };
    },
  );

  app.get<{ Params: { ep: string } }>(
    '/endpoints/:ep/settings',
    {
      schema: {
        tags: TAGS,
        summary: "An endpoint's settings, defaults filled in",
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: Settings },
      },
    },
    async (request) => {
      const ep = await loadEndpoint(ctx, request, request.params.ep);
      return effectiveSettings(ep.settings, planNameOf(ctx.config, ep));
    },
  );

  app.patch<{ Params: { ep: string }; Body: SettingsPatchT }>(
    '/endpoints/:ep/settings',
    {
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
    async (request) => {
      const ep = await loadEndpoint(ctx, request, request.params.ep);
      refuseBuiltIn(ep);
      return changeSettings(ctx, ep, request.body, { requireAdmin: () => requireAdmin(request) });
    },
  );
}
