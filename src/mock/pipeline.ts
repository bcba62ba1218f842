/**
 * The request pipeline of a user endpoint (SPEC §5). Rules and the fallback chain plug in here; what
 * answers when nothing else does is the default response, overridable per endpoint.
 */
import type { AppContext } from '../context.js';
import type { CapturedRequest } from '../http/index.js';
import type { Behavior, EndpointRecord } from '../store/index.js';
import { planOf } from '../plans.js';
import { errorBody } from '../errors.js';
import type { Answer } from './record.js';
import type { Settings } from './settings.js';

export interface PipelineResult {
  answer: Answer;
  behavior: Behavior;
  ruleId?: string | null;
  problems?: string[];
}

type DefaultResponseSetting = NonNullable<Settings['defaultResponse']>;

function headerObject(h: DefaultResponseSetting['headers']): Record<string, string> {
  if (!h) return {};
  if (Array.isArray(h)) return Object.fromEntries(h.map((x) => [x.key.toLowerCase(), x.value]));
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The friendly answer for a path nothing is configured for. */
export function defaultAnswer(ep: EndpointRecord, c: CapturedRequest): Answer {
  const custom = ep.settings['defaultResponse'] as DefaultResponseSetting | null | undefined;
  if (custom && typeof custom === 'object') {
    const headers = headerObject(custom.headers);
    headers['content-type'] ??= 'text/plain; charset=utf-8';
    return { status: custom.status ?? 200, headers, body: custom.body ?? '' };
  }
  return {
    status: 200,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body:
      `Mockingbird endpoint "${ep.name}" has nothing configured for ${c.method} ${c.pathname} yet. ` +
      `Add a rule with POST /api/v2/endpoints/${ep.name}/rules or in the dashboard.\n`,
  };
}

const DAY_MS = 86_400_000;

/**
 * The plan's daily quota (SPEC §10): requests of the current UTC day, counted per endpoint by the
 * shared rate limiter (the day is in the key, so every instance counts the same day). Over the quota:
 * 429 quota_exceeded, recorded as `rejected`; undefined while within it.
 */
export async function dailyQuota(ctx: AppContext, ep: EndpointRecord): Promise<PipelineResult | undefined> {
  const limit = planOf(ctx.config, ep).requestsPerDay;
  if (limit === null) return undefined;
  const now = ctx.now();
  const day = new Date(now).toISOString().slice(0, 10);
  const decision = await ctx.limiter.hit(`quota:${ep.name}:${day}`, limit, DAY_MS);
  if (decision.allowed) return undefined;
  const reset = (Math.floor(now / DAY_MS) + 1) * DAY_MS; // next midnight UTC
  return {
    behavior: 'rejected',
    answer: {
      status: 429,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'retry-after': String(Math.max(1, Math.ceil((reset - now) / 1000))),
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(reset / 1000),
      },
      body: JSON.stringify(
        errorBody('quota_exceeded', `Endpoint "${ep.name}" has used its ${limit} requests of the day (UTC).`),
      ),
    },
  };
}

export async function answerEndpoint(
  ctx: AppContext,
  ep: EndpointRecord,
  c: CapturedRequest,
): Promise<PipelineResult> {
  const overQuota = await dailyQuota(ctx, ep);
  if (overQuota) return overQuota;
  return { answer: defaultAnswer(ep, c), behavior: 'default' };
}
