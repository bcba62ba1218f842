/**
 * The mock-rule model (SPEC §4): validation of a rule against its schemas (rule-schema.ts) with the
 * checks a schema cannot express (rule-checks.ts: regexes compile, weights sum to 100, values present
 * where the operator needs one, template sizes), and the rule's stored form. The matcher and the
 * renderer read rules in this shape.
 */
import type { ErrorDetail } from '../errors.js';
import type { RuleRecord } from '../store/index.js';
import { timeSlicer, type Slicer } from '../jobs/index.js';
import { SOURCE_LIMITS, type SourceLimits } from '../template/index.js';
import { detail, MAX_DETAILS, parseWith, validationError } from '../schema/index.js';
import { isCollectionPath, ruleProblems } from './rule-checks.js';
import { normaliseGrpcAction } from './grpc-rule-checks.js';
import { type Action, RuleInput, type Rule, type RuleData } from './rule-schema.js';

export * from './rule-schema.js';

/** Whether a condition names the path of a CRUD collection (rule-checks.ts). */
export { isCollectionPath };

/** Completes the header lists left out (array defaults are filled here, not by the schema). */
function fillHeaders(a: Action): void {
  if (a.type === 'mock') a.headers ??= [];
  if (a.type === 'weighted') for (const r of a.responses) r.headers ??= [];
  if (a.type === 'callout') {
    a.headers ??= [];
    a.callout.headers ??= [];
  }
}

/**
 * Validates one rule and completes its defaults; `base` prefixes the error paths; `limits` bound its
 * templates (the TEMPLATE_MAX_* settings). Throws 400.
 */
export function parseRule(input: unknown, base = '', limits: SourceLimits = SOURCE_LIMITS): Rule | RuleData {
  const r = parseWith<RuleData & { id?: string }>(RuleInput, input, base);
  normaliseGrpcAction(r.action);
  const problems = ruleProblems(r, base, limits);
  if (problems.length > 0) throw validationError(problems);
  fillHeaders(r.action);
  // A stable field order, whatever order the client wrote.
  const rule: RuleData = {
    enabled: r.enabled,
    method: r.method,
    description: r.description,
    conditions: r.conditions,
    action: r.action,
  };
  return r.id === undefined ? rule : { id: r.id, ...rule };
}

/**
 * Validates a list of rules (bulk replace) and reports every problem of every rule at once, each
 * path under `/rules/<index>`. Ids given are kept, others are generated; a repeated id is a 400.
 */
export async function parseRuleList(
  inputs: unknown[],
  newId: () => string,
  limits: SourceLimits = SOURCE_LIMITS,
  slice: Slicer = timeSlicer(),
): Promise<Rule[]> {
  const details: ErrorDetail[] = [];
  const out: Rule[] = [];
  const seen = new Set<string>();
  let stopped: number | undefined;
  for (const [i, input] of inputs.entries()) {
    // Enough to fix first: checking the rest of a 4 MiB list would only make a longer answer.
    if (details.length >= MAX_DETAILS) {
      stopped = i;
      break;
    }
    try {
      const r = parseRule(input, `/rules/${i}`, limits) as RuleData & { id?: string };
      const id = r.id ?? newId();
      if (seen.has(id)) details.push(detail(`/rules/${i}/id`, 'Duplicate rule id', id));
      seen.add(id);
      out.push({ ...r, id });
    } catch (err) {
      details.push(...((err as { details?: ErrorDetail[] }).details ?? []));
    }
    // Each rule's regular expressions are compiled to be checked: hundreds take seconds, in slices.
    await slice();
  }
  if (details.length === 0) return out;
  if (stopped !== undefined)
    details.splice(
      MAX_DETAILS,
      Infinity,
      detail(
        `/rules/${stopped}`,
        `Validation stopped after ${MAX_DETAILS} problems: fix these and send the list again`,
      ),
    );
  throw validationError(details);
}

/** Whether any response of the rule is rendered as a template (a plan feature, SPEC §10). */
export function isTemplated(rule: RuleData): boolean {
  const a = rule.action;
  const headers = (h: { templated?: boolean }[] | undefined) => (h ?? []).some((x) => x.templated === true);
  switch (a.type) {
    case 'mock':
      return a.templated === true || headers(a.headers);
    case 'weighted':
      return a.responses.some((r) => r.templated === true || headers(r.headers));
    case 'callout':
      return a.templated === true || a.callout.templated === true || headers(a.headers);
    case 'crud':
      return false;
    case 'grpc':
      // Always rendered (SPEC §13); a body without a mustache renders as it is.
      return a.responses.some((r) => typeof r.body === 'string' && r.body.includes('{{'));
  }
}

/** The blobs a rule's action answers with. */
export function blobsOf(rule: Pick<RuleData, 'action'>): string[] {
  return rule.action.type === 'mock' && rule.action.blobPath !== undefined ? [rule.action.blobPath] : [];
}

/** The stored record of a rule (its document is everything but the id). */
export function ruleToRecord(rule: Rule): RuleRecord {
  const { id, enabled, method, description, conditions, action } = rule;
  return { id, data: { enabled, method, description, conditions, action } };
}

/** The API form of a stored rule: id first, then the document. */
export function ruleFromRecord(rec: RuleRecord): Rule {
  return { id: rec.id, ...(rec.data as unknown as RuleData) };
}
