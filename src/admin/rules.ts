/**
 * Commands on an endpoint's rules: replace them all, append one or several (an import), replace or
 * patch one, delete one or all, reorder, and append a recorded exchange. Rules are validated whole (src/mock/rule-model.ts) and
 * checked against the endpoint's plan (maxRules, templating: 403 plan_limit) and its blobs; each change
 * announces `rules` with the event the dashboards have always received for it.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.js';
import type { EventName } from '../events/index.js';
import {
  blobsOf,
  isTemplated,
  MAX_ENDPOINT_RULES,
  parseRule,
  parseRuleList,
  ruleFromRecord,
  ruleToRecord,
  type Rule,
  type RuleData,
} from '../mock/index.js';
import { planOf } from '../plans.js';
import { detail, validationError } from '../schema/index.js';
import type { EndpointRecord } from '../store/index.js';
import { sourceLimits } from '../template/index.js';
import { changed, type AdminDeps, type ChangeVersions } from './changed.js';

type RuleDeps = Pick<AdminDeps, 'config' | 'store' | 'events' | 'fence'>;

function newRuleId(): string {
  return randomUUID();
}

function rulesChanged(
  deps: RuleDeps,
  endpoint: string,
  versions: ChangeVersions,
  name: EventName,
  data: unknown,
): Promise<void> {
  return changed(deps, endpoint, 'rules', versions, { name, data });
}

/** A `blobPath` must name a blob of the endpoint (uploaded with POST …/blobs): 400 otherwise. */
async function checkBlobs(
  deps: RuleDeps,
  ep: EndpointRecord,
  rules: RuleData[],
  base: (i: number) => string,
): Promise<void> {
  const wanted = rules.flatMap((r, i) => blobsOf(r).map((b) => [i, b] as const));
  if (wanted.length === 0) return;
  const known = new Set((await deps.store.listBlobs(ep.name)).map((b) => b.name));
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
function checkPlan(deps: RuleDeps, ep: EndpointRecord, rules: RuleData[], total: number): void {
  const plan = planOf(deps.config, ep);
  if (plan.maxRules !== null && total > plan.maxRules)
    throw new AppError(
      'plan_limit',
      `The plan "${plan.name}" allows at most ${plan.maxRules} rules per endpoint (this change makes ${total}).`,
    );
  if (!plan.templating && rules.some(isTemplated))
    throw new AppError('plan_limit', `The plan "${plan.name}" does not include response templating.`);
}

/** A rule input less the `id` it may carry (a new or kept id is given by the command). */
function ruleData(deps: RuleDeps, input: unknown): RuleData {
  const { id: _ignored, ...data } = parseRule(input, '', sourceLimits(deps.config)) as RuleData & {
    id?: string;
  };
  return data;
}

/** The stored rule `id` of the endpoint; 404 when it has none. */
export async function ruleOf(deps: Pick<AdminDeps, 'store'>, ep: string, id: string): Promise<Rule> {
  const rec = await deps.store.getRule(ep, id);
  if (!rec) throw new AppError('not_found', `Rule "${id}" does not exist on endpoint "${ep}".`);
  return ruleFromRecord(rec);
}

/**
 * Replaces every rule of the endpoint in one transaction (400 with every problem of every rule under
 * `/rules/<index>`, 403 plan_limit). Answers how many rules the endpoint now has.
 */
export async function replaceRules(deps: RuleDeps, ep: EndpointRecord, inputs: unknown[]): Promise<number> {
  const rules = await parseRuleList(inputs, newRuleId, sourceLimits(deps.config));
  checkPlan(deps, ep, rules, rules.length);
  await checkBlobs(deps, ep, rules, (i) => `/rules/${i}`);
  const written = await deps.store.changeEndpoint(ep.name, (tx) =>
    tx.replaceRules(ep.name, rules.map(ruleToRecord)),
  );
  const replaced = written.result;
  await rulesChanged(deps, ep.name, written, 'rules.reordered', { order: rules.map((r) => r.id), replaced });
  return replaced;
}

/** Appends a rule at the bottom with a new id (an `id` in the input is ignored). */
export async function appendRule(deps: RuleDeps, ep: EndpointRecord, input: unknown): Promise<Rule> {
  const data = ruleData(deps, input);
  const count = await deps.store.countRules(ep.name);
  checkPlan(deps, ep, [data], count + 1);
  await checkBlobs(deps, ep, [data], () => '');
  if (count >= MAX_ENDPOINT_RULES)
    throw validationError([detail('/', `An endpoint holds at most ${MAX_ENDPOINT_RULES} rules`)]);
  const rule = { id: newRuleId(), ...data };
  const written = await deps.store.changeEndpoint(ep.name, (tx) =>
    tx.appendRule(ep.name, ruleToRecord(rule)),
  );
  await rulesChanged(deps, ep.name, written, 'rule.created', rule);
  return rule;
}

/**
 * Appends already validated rules (a HAR import, src/mock/har-import.ts) at the bottom, in order, with
 * new ids, in one transaction: all of them or none (403 plan_limit, 400 past MAX_ENDPOINT_RULES). One
 * `rules.reordered` event carries the new order: the dashboards reload the list once, not per rule.
 */
export async function appendRules(deps: RuleDeps, ep: EndpointRecord, data: RuleData[]): Promise<Rule[]> {
  if (data.length === 0) return [];
  const count = await deps.store.countRules(ep.name);
  checkPlan(deps, ep, data, count + data.length);
  await checkBlobs(deps, ep, data, (i) => `/rules/${i}`);
  if (count + data.length > MAX_ENDPOINT_RULES)
    throw validationError([
      detail(
        '/',
        `An endpoint holds at most ${MAX_ENDPOINT_RULES} rules (it has ${count}; this adds ${data.length})`,
      ),
    ]);
  const rules: Rule[] = data.map((d) => ({ id: newRuleId(), ...d }));
  const written = await deps.store.changeEndpoint(ep.name, async (tx) => {
    for (const rule of rules) await tx.appendRule(ep.name, ruleToRecord(rule));
    return (await tx.listRules(ep.name)).map((r) => r.id);
  });
  await rulesChanged(deps, ep.name, written, 'rules.reordered', {
    order: written.result,
    appended: rules.length,
  });
  return rules;
}

/** Replaces the rule `id` with `input`, keeping its id and position (404 when unknown). */
export async function replaceRule(
  deps: RuleDeps,
  ep: EndpointRecord,
  id: string,
  input: unknown,
): Promise<Rule> {
  const existing = await ruleOf(deps, ep.name, id);
  const data = ruleData(deps, input);
  checkPlan(deps, ep, [data], await deps.store.countRules(ep.name));
  await checkBlobs(deps, ep, [data], () => '');
  const rule = { id: existing.id, ...data };
  const written = await deps.store.changeEndpoint(
    ep.name,
    (tx) => tx.updateRule(ep.name, ruleToRecord(rule)),
    {
      unchanged: (updated) => !updated,
    },
  );
  if (!written.result)
    throw new AppError('not_found', `Rule "${rule.id}" does not exist on endpoint "${ep.name}".`);
  await rulesChanged(deps, ep.name, written, 'rule.updated', rule);
  return rule;
}

/**
 * A PATCH of a rule (SPEC §4): each top-level field the patch names replaces the rule's; `conditions`
 * and `action` are replaced whole, never merged, as the hosted service does. The result is validated
 * and stored as `replaceRule` does.
 */
export function patchedRule(rule: Rule, patch: Record<string, unknown>): Record<string, unknown> {
  const { id: _rule, ...data } = rule;
  const { id: _patch, ...fields } = patch;
  return { ...data, ...fields };
}

/** Deletes the rule `id` (404 when unknown); the others keep their order. */
export async function deleteRule(deps: RuleDeps, ep: EndpointRecord, id: string): Promise<void> {
  const written = await deps.store.changeEndpoint(ep.name, (tx) => tx.deleteRule(ep.name, id), {
    unchanged: (deleted) => !deleted,
  });
  if (!written.result)
    throw new AppError('not_found', `Rule "${id}" does not exist on endpoint "${ep.name}".`);
  await rulesChanged(deps, ep.name, written, 'rule.deleted', { id });
}

/** Deletes every rule; answers how many there were. */
export async function deleteAllRules(deps: RuleDeps, ep: EndpointRecord): Promise<number> {
  const written = await deps.store.changeEndpoint(ep.name, (tx) => tx.deleteAllRules(ep.name));
  const count = written.result;
  await rulesChanged(deps, ep.name, written, 'rules.deleted', { count });
  return count;
}

/**
 * Moves the listed rules to the top, in that order (400 for an unknown or repeated id, under
 * `/order/<index>`); answers how many moved.
 */
export async function reorderRules(deps: RuleDeps, ep: EndpointRecord, order: string[]): Promise<number> {
  const known = new Set((await deps.store.listRules(ep.name)).map((r) => r.id));
  const seen = new Set<string>();
  const problems = order.flatMap((id, i) => {
    const p = !known.has(id) ? 'Unknown rule id' : seen.has(id) ? 'Repeated rule id' : undefined;
    seen.add(id);
    return p ? [detail(`/order/${i}`, p, id)] : [];
  });
  if (problems.length > 0) throw validationError(problems);
  const written = await deps.store.changeEndpoint(ep.name, async (tx) => ({
    reordered: await tx.reorderRules(ep.name, order),
    now: (await tx.listRules(ep.name)).map((r) => r.id),
  }));
  await rulesChanged(deps, ep.name, written, 'rules.reordered', { order: written.result.now });
  return written.result.reordered;
}

/**
 * Appends a recorded exchange's rule (src/mock/recording.ts made and checked it) within the endpoint's
 * plan and the rule bound (403 plan_limit, 400), as creating a rule through the API does. Used by
 * `POST …/requests/:id/rule` and by the proxy's `proxy.record`.
 */
export async function appendRecordedRule(deps: RuleDeps, ep: EndpointRecord, data: RuleData): Promise<Rule> {
  const count = await deps.store.countRules(ep.name);
  const plan = planOf(deps.config, ep);
  if (plan.maxRules !== null && count + 1 > plan.maxRules)
    throw new AppError(
      'plan_limit',
      `The plan "${plan.name}" allows at most ${plan.maxRules} rules per endpoint (this change makes ${count + 1}).`,
    );
  if (count >= MAX_ENDPOINT_RULES)
    throw new AppError('validation_error', `An endpoint holds at most ${MAX_ENDPOINT_RULES} rules.`);
  const rule: Rule = { id: randomUUID(), ...data };
  const written = await deps.store.changeEndpoint(ep.name, (tx) =>
    tx.appendRule(ep.name, ruleToRecord(rule)),
  );
  await rulesChanged(deps, ep.name, written, 'rule.created', rule);
  return rule;
}
