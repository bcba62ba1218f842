/**
 * Rules routes (SPEC §4), relative to /api/v2, all under /endpoints/:ep/rules:
 *   GET list in execution order · POST create at the bottom · PUT replace all (atomic, <= 500)
 *   DELETE all · POST /reorder · GET/PUT/PATCH/DELETE /:ruleId (PUT and PATCH keep id and position)
 * Rules are validated whole (src/mock/rule-model.ts) and checked against the endpoint's plan
 * (maxRules, templating: 403 plan_limit). Every change is published to the endpoint's dashboards.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import type { EventName } from '../events/index.js';
import {
  blobsOf,
  isTemplated,
  MAX_ENDPOINT_RULES,
  MAX_RULES,
  parseRule,
  parseRuleList,
  Rule,
  ruleFromRecord,
  RuleId,
  RuleInput,
  RulePatch,
  ruleToRecord,
  type RuleData,
} from '../mock/index.js';
import { planOf } from '../plans.js';
import { detail, validationError } from '../schema/index.js';
import type { EndpointRecord } from '../store/index.js';
import { sourceLimits } from '../template/index.js';
import { refuseBuiltIn } from './endpoints.js';
import { loadEndpoint } from './endpoint-access.js';
import { DataOf, Deleted, EndpointParams, NoQuery, RuleParams } from './schemas/common.js';

const TAGS = ['Rules'];
/** A bulk replace of 500 rules with sizeable bodies is more than the 1 MB default body limit. */
/**
 * A whole rule list: 500 rules of 8 KiB each. Parsing is one block of the event loop (about 15 ms a
 * MiB); larger response bodies belong in blobs.
 */
const BULK_BODY_LIMIT = 4 * 1024 * 1024;

type EpParams = { Params: { ep: string } };
type RuleIdParams = { Params: { ep: string; ruleId: string } };

function newRuleId(): string {
  return randomUUID();
}

/** A `blobPath` must name a blob of the endpoint (uploaded with POST …/blobs): 400 otherwise. */
async function checkBlobs(
  ctx: AppContext,
  ep: EndpointRecord,
  rules: RuleData[],
  base: (i: number) => string,
): Promise<void> {
  const wanted = rules.flatMap((r, i) => blobsOf(r).map((b) => [i, b] as const));
  if (wanted.length === 0) return;
  const known = new Set((await ctx.store.listBlobs(ep.name)).map((b) => b.name));
  const details = wanted
    .filter(([, b]) => !known.has(b))
    .map(([i, b]) =>
      detail(
        `${base(i)}/action/blobPath`,
        'No blob of this endpoint has this name (upload it with POST …/blobs)',
        b,
      ),
    );
  if (details.length > 0) throw validationError(details);
}

/** 403 plan_limit when the rules (all of the endpoint's, after the change) exceed its plan. */
function checkPlan(ctx: AppContext, ep: EndpointRecord, rules: RuleData[], total: number): void {
  const plan = planOf(ctx.config, ep);
  if (plan.maxRules !== null && total > plan.maxRules)
    throw new AppError(
      'plan_limit',
      `The plan "${plan.name}" allows at most ${plan.maxRules} rules per endpoint (this change makes ${total}).`,
    );
  if (!plan.templating && rules.some(isTemplated))
    throw new AppError('plan_limit', `The plan "${plan.name}" does not include response templating.`);
}

/**
 * Applies a PATCH to a rule (SPEC §4): each top-level field it names replaces the rule's;
 * `conditions` and `action` are replaced whole, never merged, as the hosted service does.
 */
function patchRule(rule: RuleData, patch: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...fields } = patch;
  return { ...rule, ...fields };
}

/**
 * Replaces every rule of the endpoint in one transaction (400 with every problem of every rule under
 * `/rules/<index>`, 403 plan_limit), then tells the request path and the dashboards. Answers how many
 * rules the endpoint now has. Shared by `PUT …/rules` and the configuration file loader.
 */
export async function replaceRules(ctx: AppContext, ep: EndpointRecord, inputs: unknown[]): Promise<number> {
  const rules = await parseRuleList(inputs, newRuleId, sourceLimits(ctx.config));
  checkPlan(ctx, ep, rules, rules.length);
  await checkBlobs(ctx, ep, rules, (i) => `/rules/${i}`);
  const replaced = await ctx.store.replaceRules(ep.name, rules.map(ruleToRecord));
  ctx.endpoints.invalidate(ep.name);
  ctx.events.publish({
    endpoint: ep.name,
    name: 'rules.reordered',
    data: { order: rules.map((r) => r.id), replaced },
  });
  return replaced;
}

export async function rulesApi(app: FastifyInstance, ctx: AppContext): Promise<void> {
  /** After a change of the endpoint's rules: the request path reads them afresh, dashboards are told. */
  function publish(endpoint: string, name: EventName, data: unknown): void {
    ctx.endpoints.invalidate(endpoint);
    ctx.events.publish({ endpoint, name, data });
  }

  /** The endpoint, for a change: scope (403), existence (404), not the built-in echo (403). */
  async function writable(request: FastifyRequest, name: string): Promise<EndpointRecord> {
    const ep = await loadEndpoint(ctx, request, name);
    refuseBuiltIn(ep);
    return ep;
  }

  async function ruleOr404(ep: string, id: string) {
    const rec = await ctx.store.getRule(ep, id);
    if (!rec) throw new AppError('not_found', `Rule "${id}" does not exist on endpoint "${ep}".`);
    return rec;
  }

  const base = '/endpoints/:ep/rules';
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
    async (request) => {
      const ep = await loadEndpoint(ctx, request, request.params.ep);
      return { data: (await ctx.store.listRules(ep.name)).map(ruleFromRecord) };
    },
  );

  app.post<EpParams>(
    base,
    {
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
    async (request, reply) => {
      const ep = await writable(request, request.params.ep);
      const { id: _ignored, ...data } = parseRule(request.body, '', sourceLimits(ctx.config)) as RuleData & {
        id?: string;
      };
      const count = await ctx.store.countRules(ep.name);
      checkPlan(ctx, ep, [data], count + 1);
      await checkBlobs(ctx, ep, [data], () => '');
      if (count >= MAX_ENDPOINT_RULES)
        throw validationError([detail('/', `An endpoint holds at most ${MAX_ENDPOINT_RULES} rules`)]);
      const rule = { id: newRuleId(), ...data };
      await ctx.store.appendRule(ep.name, ruleToRecord(rule));
      publish(ep.name, 'rule.created', rule);
      return reply.code(201).send(rule);
    },
  );

  app.put<EpParams & { Body: { rules: unknown[] } }>(
    base,
    {
      bodyLimit: BULK_BODY_LIMIT,
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
    async (request) => {
      const ep = await writable(request, request.params.ep);
      return { replaced: await replaceRules(ctx, ep, request.body.rules) };
    },
  );

  app.delete<EpParams>(
    base,
    {
      schema: {
        tags: TAGS,
        summary: 'Delete every rule (settings stay; the fallback chain applies)',
        params: EndpointParams,
        querystring: NoQuery,
        response: { 200: Type.Object({ deleted: Type.Literal(true), count: Type.Integer() }) },
      },
    },
    async (request) => {
      const ep = await writable(request, request.params.ep);
      const count = await ctx.store.deleteAllRules(ep.name);
      publish(ep.name, 'rules.deleted', { count });
      return { deleted: true as const, count };
    },
  );

  app.post<EpParams & { Body: { order: string[] } }>(
    `${base}/reorder`,
    {
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
    async (request) => {
      const ep = await writable(request, request.params.ep);
      const { order } = request.body;
      const known = new Set((await ctx.store.listRules(ep.name)).map((r) => r.id));
      const seen = new Set<string>();
      const problems = order.flatMap((id, i) => {
        const p = !known.has(id) ? 'Unknown rule id' : seen.has(id) ? 'Repeated rule id' : undefined;
        seen.add(id);
        return p ? [detail(`/order/${i}`, p, id)] : [];
      });
      if (problems.length > 0) throw validationError(problems);
      const reordered = await ctx.store.reorderRules(ep.name, order);
      const now = (await ctx.store.listRules(ep.name)).map((r) => r.id);
      publish(ep.name, 'rules.reordered', { order: now });
      return { data: { reordered } };
    },
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
    async (request) => {
      const ep = await loadEndpoint(ctx, request, request.params.ep);
      return ruleFromRecord(await ruleOr404(ep.name, request.params.ruleId));
    },
  );

  /** PUT and PATCH: validate the new rule, check the plan, keep id and position. */
  async function replaceOne(request: FastifyRequest, params: RuleIdParams['Params'], input: unknown) {
    const ep = await writable(request, params.ep);
    const existing = ruleFromRecord(await ruleOr404(ep.name, params.ruleId));
    const { id: _ignored, ...data } = parseRule(input, '', sourceLimits(ctx.config)) as RuleData & {
      id?: string;
    };
    checkPlan(ctx, ep, [data], await ctx.store.countRules(ep.name));
    await checkBlobs(ctx, ep, [data], () => '');
    const rule = { id: existing.id, ...data };
    if (!(await ctx.store.updateRule(ep.name, ruleToRecord(rule))))
      throw new AppError('not_found', `Rule "${rule.id}" does not exist on endpoint "${ep.name}".`);
    publish(ep.name, 'rule.updated', rule);
    return rule;
  }

  app.put<RuleIdParams>(
    one,
    {
      schema: {
        tags: TAGS,
        summary: 'Replace a rule (keeps its id and position)',
        params: RuleParams,
        querystring: NoQuery,
        body: RuleInput,
        response: { 200: Rule },
      },
    },
    async (request) => replaceOne(request, request.params, request.body),
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
      const ep = await loadEndpoint(ctx, request, request.params.ep);
      const existing = ruleFromRecord(await ruleOr404(ep.name, request.params.ruleId));
      const { id: _id, ...data } = existing;
      return replaceOne(request, request.params, patchRule(data, request.body));
    },
  );

  app.delete<RuleIdParams>(
    one,
    {
      schema: {
        tags: TAGS,
        summary: 'Delete one rule (the others keep their order)',
        params: RuleParams,
        querystring: NoQuery,
        response: { 200: Deleted },
      },
    },
    async (request) => {
      const ep = await writable(request, request.params.ep);
      const { ruleId } = request.params;
      if (!(await ctx.store.deleteRule(ep.name, ruleId)))
        throw new AppError('not_found', `Rule "${ruleId}" does not exist on endpoint "${ep.name}".`);
      publish(ep.name, 'rule.deleted', { id: ruleId });
      return { id: ruleId, deleted: true as const };
    },
  );
}
