/**
 * Rules routes (SPEC §4), relative to /api/v2, all under /endpoints/:ep/rules:
 *   GET list in execution order · POST create at the bottom · PUT replace all (atomic, <= 500)
 *   DELETE all · POST /reorder · GET/PUT/PATCH/DELETE /:ruleId (PUT and PATCH keep id and position)
 * Rules are validated whole (src/mock/rule-model.ts) and checked against the endpoint's plan
 * (maxRules, templating: 403 plan_limit). Every change is a command (src/admin/rules.ts), which
 * tells the request path and the endpoint's dashboards; these routes are its adapters.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ApiDeps } from './deps.js';
import {
  appendRule,
  deleteAllRules,
  deleteRule,
  patchedRule,
  reorderRules,
  replaceRule,
  replaceRules,
  ruleOf,
} from '../admin/index.js';
import {
  MAX_ENDPOINT_RULES,
  MAX_RULES,
  Rule,
  ruleFromRecord,
  RuleId,
  RuleInput,
  RulePatch,
} from '../mock/index.js';
import { refuseBuiltIn } from './endpoint-scope.js';
import { DataOf, Deleted, EndpointParams, NoQuery, RuleParams } from './schemas/common.js';

const TAGS = ['Rules'];
/**
 * A whole rule list: 500 rules of 8 KiB each. Parsing is one block of the event loop (about 15 ms a
 * MiB); larger response bodies belong in blobs.
 */
const BULK_BODY_LIMIT = 4 * 1024 * 1024;

type EpParams = { Params: { ep: string } };
type RuleIdParams = { Params: { ep: string; ruleId: string } };

/** The rules routes, relative to /endpoints/:ep (endpoint-scope.ts). */
export async function rulesApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'events' | 'fence' | 'store'>,
): Promise<void> {
  /** Routes that change the rules refuse the built-in `echo` endpoint (403). */
  const writable = { endpoint: { writable: true as const } };
  const base = '/rules';
  const one = `${base}/:ruleId`;

  app.get<EpParams>(
    base,
    {
      schema: {
        tags: TAGS,
        summary: 'List rules in execution order',
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: DataOf(Type.Array(Rule)) },
      },
    },
    async (request) => ({ data: (await ctx.store.listRules(request.endpoint.name)).map(ruleFromRecord) }),
  );

  app.post<EpParams>(
    base,
    {
      config: writable,
      schema: {
        tags: TAGS,
        summary: 'Create a rule at the bottom of the list',
        description: 'An `id` in the body is ignored: the rule gets a new one.',
        params: EndpointParams,
        querystring: NoQuery,
        body: RuleInput,
        response: { 201: Rule },
      },
    },
    async (request, reply) => reply.code(201).send(await appendRule(ctx, request.endpoint, request.body)),
  );

  app.put<EpParams & { Body: { rules: unknown[] } }>(
    base,
    {
      bodyLimit: BULK_BODY_LIMIT,
      config: writable,
      schema: {
        tags: TAGS,
        summary: 'Replace every rule at once (atomic)',
        description:
          `At most ${MAX_RULES} rules. Ids given are kept, missing ones generated. One invalid rule ` +
          'refuses the whole list and leaves the current rules as they were.',
        params: EndpointParams,
        querystring: NoQuery,
        body: Type.Object(
          { rules: Type.Array(Type.Unknown({ description: 'a RuleInput' }), { maxItems: MAX_RULES }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ replaced: Type.Integer() }) },
      },
    },
    async (request) => ({ replaced: await replaceRules(ctx, request.endpoint, request.body.rules) }),
  );

  app.delete<EpParams>(
    base,
    {
      config: writable,
      schema: {
        tags: TAGS,
        summary: 'Delete every rule (settings stay; the fallback chain applies)',
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: Type.Object({ deleted: Type.Literal(true), count: Type.Integer() }) },
      },
    },
    async (request) => ({ deleted: true as const, count: await deleteAllRules(ctx, request.endpoint) }),
  );

  app.post<EpParams & { Body: { order: string[] } }>(
    `${base}/reorder`,
    {
      config: writable,
      schema: {
        tags: TAGS,
        summary: 'Move the listed rules to the top, in that order',
        description: 'The other rules keep their relative order. An unknown or repeated id is a 400.',
        params: EndpointParams,
        querystring: NoQuery,
        body: Type.Object(
          { order: Type.Array(RuleId, { maxItems: MAX_ENDPOINT_RULES }) },
          { additionalProperties: false },
        ),
        response: { 200: DataOf(Type.Object({ reordered: Type.Integer() })) },
      },
    },
    async (request) => ({
      data: { reordered: await reorderRules(ctx, request.endpoint, request.body.order) },
    }),
  );

  app.get<RuleIdParams>(
    one,
    {
      schema: {
        tags: TAGS,
        summary: 'One rule',
        params: RuleParams,
        querystring: NoQuery,
        response: { 200: Rule },
      },
    },
    async (request) => ruleOf(ctx, request.endpoint.name, request.params.ruleId),
  );

  app.put<RuleIdParams>(
    one,
    {
      config: writable,
      schema: {
        tags: TAGS,
        summary: 'Replace a rule (keeps its id and position)',
        params: RuleParams,
        querystring: NoQuery,
        body: RuleInput,
        response: { 200: Rule },
      },
    },
    async (request) => replaceRule(ctx, request.endpoint, request.params.ruleId, request.body),
  );

  app.patch<RuleIdParams & { Body: Record<string, unknown> }>(
    one,
    {
      schema: {
        tags: TAGS,
        summary: 'Change some fields of a rule (keeps its id and position)',
        description:
          "Each top-level field named replaces the rule's; `conditions` and `action` are replaced whole, " +
          'never merged. The result is validated as a whole rule.',
        params: RuleParams,
        querystring: NoQuery,
        body: RulePatch,
        response: { 200: Rule },
      },
    },
    async (request) => {
      // The rule is looked up before the built-in `echo` is refused (which has none: 404).
      const existing = await ruleOf(ctx, request.endpoint.name, request.params.ruleId);
      refuseBuiltIn(request.endpoint);
      return replaceRule(ctx, request.endpoint, existing.id, patchedRule(existing, request.body));
    },
  );

  app.delete<RuleIdParams>(
    one,
    {
      config: writable,
      schema: {
        tags: TAGS,
        summary: 'Delete one rule (the others keep their order)',
        params: RuleParams,
        querystring: NoQuery,
        response: { 200: Deleted },
      },
    },
    async (request) => {
      await deleteRule(ctx, request.endpoint, request.params.ruleId);
      return { id: request.params.ruleId, deleted: true as const };
    },
  );
}
