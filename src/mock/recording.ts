/**
 * Record and replay (SPEC §7 "Recording"): a recorded exchange becomes a mock rule at the bottom of
 * the endpoint's list, answering the same method and path (`path` `equals`, the query left out) with
 * the recorded status, headers and body. Used by the API route (`POST …/requests/:id/rule`, from the
 * history) and by the proxy with `proxy.record: true` (from the upstream's answer as it streamed by);
 * both append the rule with the same command (src/admin/rules.ts `appendRecordedRule`).
 *
 * What a rule cannot replay faithfully is refused rather than kept wrong: a body the history holds
 * cut, a body still compressed (the history keeps text), a method rules cannot name. Headers left out
 * of the rule: hop-by-hop ones, `Content-Length` and `Date` (the server writes fresh ones), and the
 * headers the history keeps redacted (SPEC §12: a rule is stored too, and a `[REDACTED]` cookie
 * would be worse than none).
 */
import type { MockDeps } from './deps.js';
import { AppError } from '../errors.js';
import { hopByHopNames, type AnswerHeaders } from '../http/index.js';
import type { EndpointRecord } from '../store/index.js';
import { parseRule, RULE_METHODS, type RuleData } from './rule-model.js';

/** An answered request, as the history or the proxy saw it. */
export interface RecordedExchange {
  /** The history id of the request. */
  id: string;
  method: string;
  /** Path, with or without its query string. */
  path: string;
  status: number;
  headers: AnswerHeaders;
  /** The whole response body, as text. */
  body: string;
  /** The body is only the start of what was sent. */
  truncated?: boolean;
  /** Describes where the rule came from. */
  source: 'history' | 'proxy';
}

/**
 * Appends a recorded rule to the endpoint's list (the command `appendRecordedRule` of src/admin/,
 * handed to the proxy step by the server, since the commands build on this folder).
 */
export type RuleRecorder = (ep: EndpointRecord, data: RuleData) => Promise<unknown>;

/** Headers a recorded answer never passes to its rule (besides hop-by-hop and redacted ones). */
const NOT_REPLAYED = new Set(['content-length', 'date']);
const HEADER_VALUE_MAX = 8192;
const RULE_HEADERS_MAX = 100;

/**
 * The rule that replays `x`; `leaveOut` names the headers kept redacted. Throws 409 `conflict` when
 * the exchange cannot be replayed as it was, 400 when the result is not a valid rule.
 */
export function recordedRule(x: RecordedExchange, leaveOut: ReadonlySet<string>): RuleData {
  const method = x.method.toUpperCase();
  if (!(RULE_METHODS as readonly string[]).includes(method) || method === '*')
    throw new AppError('conflict', `A rule cannot name the method ${method}.`);
  if (x.truncated)
    throw new AppError(
      'conflict',
      'The recorded response body is cut (over CAPTURE_LIMIT): a rule would not answer the same.',
    );
  const encoding = x.headers['content-encoding'];
  if (encoding !== undefined && String(encoding).trim().toLowerCase() !== 'identity')
    throw new AppError(
      'conflict',
      `The recorded response body is ${String(encoding)}-encoded and the history keeps it as text; ` +
        'record it with proxy.record: true (which decodes it) or have the client send Accept-Encoding: identity.',
    );
  const drop = hopByHopNames(x.headers['connection']);
  const headers: { key: string; value: string }[] = [];
  for (const [key, v] of Object.entries(x.headers)) {
    if (drop.has(key) || NOT_REPLAYED.has(key) || leaveOut.has(key) || key === 'content-encoding') continue;
    for (const value of typeof v === 'string' ? [v] : v)
      if (value.length <= HEADER_VALUE_MAX && !/[\r\n\0]/.test(value)) headers.push({ key, value });
  }
  const q = x.path.indexOf('?');
  const pathname = q === -1 ? x.path : x.path.slice(0, q);
  const from = x.source === 'proxy' ? 'a proxied request' : 'request';
  return parseRule({
    method,
    description: `Recorded from ${from} ${x.id} (${method} ${pathname})`,
    conditions: [{ type: 'path', operator: 'equals', value: pathname }],
    action: {
      type: 'mock',
      status: x.status,
      headers: headers.slice(0, RULE_HEADERS_MAX),
      body: x.body,
    },
  });
}

/** Whether the endpoint already has a rule for this method (or any method) and exact path. */
export async function hasRuleFor(
  ctx: Pick<MockDeps, 'store'>,
  ep: string,
  method: string,
  pathname: string,
): Promise<boolean> {
  const rules = await ctx.store.listRules(ep);
  return rules.some((r) => {
    const d = r.data as unknown as RuleData;
    return (
      (d.method === method || d.method === '*') &&
      d.conditions.some((c) => c.type === 'path' && c.operator === 'equals' && c.value === pathname)
    );
  });
}
