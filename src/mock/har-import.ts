/**
 * HAR in: each entry of a HAR 1.2 document (a browser's or a proxy's capture) becomes a mock rule that
 * answers the same request with the same response. Pure: a parsed document in, the rules and the
 * entries skipped (with why) out; src/admin/rules.ts `appendRules` stores them.
 *
 * A rule names the method, the path (`path` `equals`, the query left out of it), each query
 * parameter (`query_param` `equals`) and the request headers the caller chose (`header` `equals`),
 * and answers the recorded status, headers and body. Left out of the answer's headers: hop-by-hop
 * and framing ones (`Content-Length`, `Transfer-Encoding`, `Content-Encoding`: a HAR holds the
 * decoded body and the server frames its own), `Date`, and HTTP/2 pseudo-headers (`:status`).
 * Skipped, each with its reason: an entry that is not one (no method, URL or status), a request
 * that failed (status 0), a method rules cannot name, a body that is not text (base64 that is not
 * UTF-8), one needing more conditions than a rule holds, and a duplicate, the same method, path and
 * query as an earlier entry or an existing rule (the first one wins, as rules do).
 */
import { AppError } from '../errors.js';
import { hopByHopNames } from '../http/index.js';
import { parseRule, RULE_METHODS, type RuleData } from './rule-model.js';

/** Most entries one HAR import reads (the API's and a configuration file's): past it, split the document. */
export const HAR_MAX_ENTRIES = 10_000;
/** Conditions one rule holds (rule-schema.ts). */
const MAX_CONDITIONS = 5;
/** Headers one rule's answer holds (rule-schema.ts). */
const MAX_RULE_HEADERS = 100;
/** Headers a replayed answer never carries, besides the hop-by-hop ones. */
const NOT_REPLAYED = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'date']);

export interface HarImportOptions {
  /** Request header names (any case) that become `header` `equals` conditions when present. */
  headers?: readonly string[];
}

/** An entry left out, by its index in `log.entries`. */
export interface HarSkip {
  index: number;
  reason: string;
}

export interface HarImportPlan {
  /** The rules to append, in the HAR's order. */
  rules: RuleData[];
  /** The HAR index each rule came from. */
  indexes: number[];
  skipped: HarSkip[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `name`/`value` pairs of a HAR list (headers); anything else in the list is ignored. */
function pairsOf(list: unknown): { name: string; value: string }[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((p) =>
    isObj(p) && typeof p['name'] === 'string' && typeof p['value'] === 'string'
      ? [{ name: p['name'], value: p['value'] }]
      : [],
  );
}

/** What makes two rules the same for the import: method, path, and the query's pairs in any order. */
export function duplicateKey(method: string, path: string, query: readonly [string, string][]): string {
  const q = [...query].map(([k, v]) => JSON.stringify([k, v])).sort();
  return JSON.stringify([method, path, q]);
}

/** The duplicate key of a stored rule that names an exact path; undefined for any other rule. */
export function ruleKey(rule: RuleData): string | undefined {
  const path = rule.conditions.find((c) => c.type === 'path' && c.operator === 'equals');
  if (!path || typeof path.value !== 'string') return undefined;
  const query = rule.conditions.flatMap((c) =>
    c.type === 'query_param' && c.operator === 'equals' ? [[c.key, c.value ?? ''] as [string, string]] : [],
  );
  return duplicateKey(rule.method, path.value, query);
}

/** The response body as text, or why it cannot be one. */
function bodyOf(content: unknown): { text: string } | { reason: string } {
  if (!isObj(content) || content['text'] === undefined) return { text: '' };
  const text = content['text'];
  if (typeof text !== 'string') return { reason: 'response.content.text is not a string' };
  const encoding = content['encoding'];
  if (encoding === undefined || encoding === '') return { text };
  if (encoding !== 'base64')
    return { reason: `response.content.encoding ${JSON.stringify(encoding)} is not base64` };
  const bytes = Buffer.from(text, 'base64');
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return {
      reason:
        `binary response body (${bytes.length} bytes, not UTF-8): rules hold text; ` +
        'upload it with POST …/blobs and name it in the rule as blobPath',
    };
  }
}

/** The answer's headers less the ones a rule must not replay; values a rule cannot hold are dropped. */
function answerHeaders(list: unknown): { key: string; value: string }[] {
  const all = pairsOf(list).map((h) => ({ key: h.name.toLowerCase(), value: h.value }));
  const drop = hopByHopNames(all.filter((h) => h.key === 'connection').map((h) => h.value));
  return all
    .filter(
      (h) =>
        !h.key.startsWith(':') &&
        !drop.has(h.key) &&
        !NOT_REPLAYED.has(h.key) &&
        /^[!#$%&'*+.^_`|~0-9a-z-]{1,256}$/.test(h.key) &&
        h.value.length <= 8192 &&
        /^[\t\u0020-\u007e\u0080-\u00ff]*$/.test(h.value),
    )
    .slice(0, MAX_RULE_HEADERS);
}

type Converted = { rule: RuleData; key: string } | { reason: string };

/** One HAR entry as a rule, or why it is skipped. */
function convert(entry: unknown, index: number, wanted: readonly string[]): Converted {
  if (!isObj(entry) || !isObj(entry['request']) || !isObj(entry['response']))
    return { reason: 'not a HAR entry (request and response objects)' };
  const req = entry['request'];
  const res = entry['response'];
  if (typeof req['method'] !== 'string' || typeof req['url'] !== 'string')
    return { reason: 'request.method and request.url must be strings' };
  const method = req['method'].toUpperCase();
  if (method === '*' || !(RULE_METHODS as readonly string[]).includes(method))
    return { reason: `a rule cannot name the method ${method}` };
  let url: URL;
  try {
    url = new URL(req['url']);
  } catch {
    return { reason: 'request.url is not an absolute URL' };
  }
  const status = res['status'];
  if (typeof status !== 'number' || !Number.isInteger(status))
    return { reason: 'response.status is not a whole number' };
  if (status === 0) return { reason: 'no response (status 0: the request failed or was blocked)' };
  const body = bodyOf(res['content']);
  if ('reason' in body) return body;
  const query = [...new Set([...url.searchParams].map((p) => JSON.stringify(p)))].map(
    (p) => JSON.parse(p) as [string, string],
  );
  const requestHeaders = pairsOf(req['headers']);
  const headerConditions = wanted.flatMap((name) => {
    const h = requestHeaders.find((x) => x.name.toLowerCase() === name);
    return h ? [{ type: 'header', key: name, operator: 'equals', value: h.value }] : [];
  });
  const count = 1 + query.length + headerConditions.length;
  if (count > MAX_CONDITIONS)
    return {
      reason:
        `needs ${count} conditions (the path, ${query.length} query parameter(s), ` +
        `${headerConditions.length} header(s)); a rule holds at most ${MAX_CONDITIONS}`,
    };
  const path = url.pathname;
  try {
    const rule = parseRule({
      method,
      description: `Imported from HAR entry ${index} (${method} ${path})`.slice(0, 1000),
      conditions: [
        { type: 'path', operator: 'equals', value: path },
        ...query.map(([key, value]) => ({ type: 'query_param', key, operator: 'equals', value })),
        ...headerConditions,
      ],
      action: { type: 'mock', status, headers: answerHeaders(res['headers']), body: body.text },
    });
    return { rule, key: duplicateKey(method, path, query) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const d = err.details?.[0];
    return { reason: `not a valid rule: ${d ? `${d.path} ${d.message}` : err.message}` };
  }
}

/**
 * The rules a HAR document makes. `log.entries` must be an array (the route's schema checks it);
 * `existing` are the endpoint's rules, which an entry must not duplicate.
 */
export function harRules(
  entries: readonly unknown[],
  existing: readonly RuleData[],
  options: HarImportOptions = {},
): HarImportPlan {
  const wanted = [...new Set((options.headers ?? []).map((h) => h.trim().toLowerCase()))].filter(
    (h) => h !== '',
  );
  const seen = new Map<string, string>();
  for (const r of existing) {
    const k = ruleKey(r);
    if (k !== undefined) seen.set(k, 'an existing rule');
  }
  const plan: HarImportPlan = { rules: [], indexes: [], skipped: [] };
  entries.forEach((entry, index) => {
    const c = convert(entry, index, wanted);
    if ('reason' in c) return void plan.skipped.push({ index, reason: c.reason });
    const before = seen.get(c.key);
    if (before !== undefined)
      return void plan.skipped.push({
        index,
        reason: `duplicate of ${before} (same method, path and query)`,
      });
    seen.set(c.key, `entry ${index}`);
    plan.rules.push(c.rule);
    plan.indexes.push(index);
  });
  return plan;
}
