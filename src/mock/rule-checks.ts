/**
 * The checks of a rule that its schema cannot express (rule-model.ts runs them after the schemas of rule-schema.ts):
 * regular expressions compile in the linear-time engine, values are present where the operator needs
 * one, path templates and state values are well formed, weights sum to 100, a callout's URL is one the
 * outbound guard takes (no credentials) and its delay range is ordered, and templates are within
 * TEMPLATE_MAX_* (source-limits.ts). gRPC rules have their own checks (grpc-rule-checks.ts).
 */
import type { ErrorDetail } from '../errors.js';
import { userRegexProblem } from '../regex/index.js';
import { redactTargetUrl, targetProblem } from '../outbound/index.js';
import { detail } from '../schema/index.js';
import { templateSourceProblem, type SourceLimits } from '../template/index.js';
import type { Action, Condition, RuleData } from './rule-schema.js';
import { grpcRuleProblems } from './grpc-rule-checks.js';
import type { DelaySpec } from './latency-schema.js';

const VALUELESS = new Set(['exists', 'not_exists', 'is_null', 'is_not_null']);
const TEMPLATE_SEGMENT = /^(:[A-Za-z_][A-Za-z0-9_]*|[^:]*)$/;

function conditionProblems(c: Condition, path: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const value = (c as { value?: string }).value;
  if (value === undefined) {
    // Every operator-less condition (grpc_method) needs its value: the schema says so.
    if (c.operator !== undefined && !VALUELESS.has(c.operator))
      out.push(detail(`${path}/value`, `Required for operator "${c.operator}"`));
    return out;
  }
  if (c.operator === 'regex') {
    const problem = userRegexProblem(value);
    if (problem !== undefined) out.push(detail(`${path}/value`, problem, value));
  }
  if (
    c.type === 'path' &&
    ['equals', 'starts_with', 'template'].includes(c.operator) &&
    !value.startsWith('/')
  )
    out.push(detail(`${path}/value`, 'A path starts with "/"', value));
  if (
    c.type === 'path' &&
    c.operator === 'template' &&
    !value.split('/').every((s) => TEMPLATE_SEGMENT.test(s))
  )
    out.push(
      detail(`${path}/value`, 'A template parameter is ":" followed by a name, e.g. /users/:id', value),
    );
  if (c.type === 'state' && c.stateType === 'counter' && !/^-?\d+$/.test(value))
    out.push(detail(`${path}/value`, 'A counter is compared with a whole number', value));
  if (
    c.type === 'state' &&
    c.stateType === 'list' &&
    !['contains', 'not_contains'].includes(c.operator) &&
    !/^\d+$/.test(value)
  )
    out.push(detail(`${path}/value`, "A list's length is compared with a whole number", value));
  return out;
}

/** Whether a condition names the path of a CRUD collection (equals, starts_with or template). */
export function isCollectionPath(c: Condition): boolean {
  return c.type === 'path' && ['equals', 'starts_with', 'template'].includes(c.operator);
}

type Templated = { templated?: boolean; headers?: { value: string; templated?: boolean }[]; body?: string };

/** The templates of a response (`at` its path): body and header values rendered as templates. */
function templatesOf(r: Templated, at: string, all: boolean): [string, string][] {
  const out: [string, string][] = [];
  if (r.templated === true && r.body !== undefined) out.push([`${at}/body`, r.body]);
  (r.headers ?? []).forEach((h, i) => {
    if (all ? r.templated === true : h.templated === true) out.push([`${at}/headers/${i}/value`, h.value]);
  });
  return out;
}

/**
 * Templates over TEMPLATE_MAX_BYTES, TEMPLATE_MAX_MUSTACHES or TEMPLATE_MAX_NESTING, each or (bytes
 * and mustaches) all of one rule's together: refused when saved, before Handlebars parses them
 * (source-limits.ts), whichever way the rule arrives.
 */
function templateProblems(a: Action, base: string, limits: SourceLimits): ErrorDetail[] {
  const sources: [string, string][] = [];
  if (a.type === 'mock') sources.push(...templatesOf(a, `${base}/action`, false));
  if (a.type === 'weighted')
    a.responses.forEach((r, i) => sources.push(...templatesOf(r, `${base}/action/responses/${i}`, false)));
  if (a.type === 'callout') {
    sources.push(...templatesOf(a, `${base}/action`, false));
    sources.push(...templatesOf(a.callout, `${base}/action/callout`, true));
  }
  // A gRPC response body is always a template (SPEC §13); it is text once normalised.
  if (a.type === 'grpc')
    a.responses.forEach((r, i) => {
      if (typeof r.body === 'string') sources.push([`${base}/action/responses/${i}/body`, r.body]);
    });
  const out: ErrorDetail[] = [];
  for (const [path, source] of sources) {
    const problem = templateSourceProblem(source, limits);
    if (problem !== undefined) out.push(detail(path, problem));
  }
  // The bytes and mustaches of one rule's templates together: a rule's templates are compiled at
  // once (a weighted rule may hold 100 responses of 101 templates each).
  if (out.length === 0 && sources.length > 1) {
    const all = sources.map(([, source]) => source).join('\n');
    const problem = templateSourceProblem(all, { ...limits, maxNesting: Number.POSITIVE_INFINITY });
    if (problem !== undefined)
      out.push(detail(`${base}/action`, problem.replace('The template', "The rule's templates together")));
  }
  return out;
}

/** A distribution's bounds in order: uniform `min` ≤ `max`, lognormal `median` ≤ `max`. */
export function delayProblems(d: DelaySpec | undefined, at: string): ErrorDetail[] {
  if (d === undefined || typeof d === 'number') return [];
  if (d.distribution === 'uniform' && d.min > d.max)
    return [detail(at, `min (${d.min}) is more than max (${d.max})`, d.min)];
  if (d.distribution === 'lognormal' && d.max !== undefined && d.median > d.max)
    return [detail(at, `median (${d.median}) is more than max (${d.max})`, d.median)];
  return [];
}

type Failing = { delay?: DelaySpec; fault?: string; chunked?: unknown };

/** A response's delay bounds, and a fault beside a dribble (a fault sends no body to dribble). */
function responseProblems(r: Failing, at: string): ErrorDetail[] {
  const out = delayProblems(r.delay, `${at}/delay`);
  if (r.fault !== undefined && r.chunked !== undefined)
    out.push(
      detail(`${at}/chunked`, 'A response with a fault sends no body to dribble: give one of the two'),
    );
  return out;
}

/** Problems the schema cannot see: compiling regexes, weights, values the operator needs, template sizes. */
export function ruleProblems(rule: RuleData, base: string, limits: SourceLimits): ErrorDetail[] {
  const out = rule.conditions.flatMap((c, i) => conditionProblems(c, `${base}/conditions/${i}`));
  const a = rule.action;
  out.push(...templateProblems(a, base, limits));
  out.push(...grpcRuleProblems(rule, base));
  // A CRUD collection lives under a literal path (crud.ts, collectionLocator).
  if (a.type === 'crud' && !rule.conditions.some(isCollectionPath))
    out.push(
      detail(
        `${base}/conditions`,
        'A crud action needs a path condition with operator equals, starts_with or template: the collection lives under that path',
      ),
    );
  if (a.type === 'mock' || a.type === 'callout') out.push(...responseProblems(a, `${base}/action`));
  if (a.type === 'weighted') {
    a.responses.forEach((r, i) => out.push(...responseProblems(r, `${base}/action/responses/${i}`)));
    const sum = a.responses.reduce((n, r) => n + r.weight, 0);
    if (Math.abs(sum - 100) > 1e-6)
      out.push(detail(`${base}/action/responses`, `Weights must sum to 100 (they sum to ${sum})`, sum));
  }
  if (a.type === 'callout') {
    // The outbound guard's own check (scheme, credentials, host): what it would refuse when the
    // callout is sent is refused now, and a password in the URL is never stored.
    const problem = targetProblem(a.callout.url);
    if (problem !== undefined)
      out.push(
        detail(
          `${base}/action/callout/url`,
          `Not a callout target: ${problem}`,
          redactTargetUrl(a.callout.url),
        ),
      );
    const d = a.callout.delay;
    if (d && d.min > d.max)
      out.push(detail(`${base}/action/callout/delay`, `min (${d.min}) is more than max (${d.max})`, d.min));
  }
  return out;
}
