/**
 * The request pipeline of a user endpoint (SPEC §5), as an ordered list of steps, each answering or
 * passing: guards (preflight, client certificate, security, rate limit, quota), the rules, the fallback
 * chain (tunnel, proxy, OpenAPI), and last the default response, which always answers.
 */
import type { MockDeps } from './deps.js';
import type { EndpointPipeline, Outcome } from '../endpoint/index.js';
import { headerMap, rateLimitedAnswer, TEXT_TYPE, type Answer } from '../http/index.js';
import { customDefaultResponse, type Settings } from './settings.js';
import type { Endpoint, MockStep } from './endpoint-settings.js';
import { preflightStep, rateLimitStep, securityStep, withCors } from './guards.js';
import { rulesStep } from './rules-step.js';
import { tunnelStep } from './tunnel-step.js';
import { isSafeHeaderValue } from '../template/index.js';
import { proxyStep } from './proxy-step.js';
import type { RuleRecorder } from './recording.js';
import { oasStep } from './oas-step.js';
import { mtlsStep } from '../mtls/index.js';
import { withChaos } from './chaos.js';
import { withContract } from './contract-step.js';

/**
 * The stored headers as a null-prototype map (a repeated name: the last value), less what cannot be
 * sent as stored: framing headers (Node sets them for the body it sends) and a value Node refuses
 * (one stored before values were checked at save made every answer a 500).
 */
function headerObject(h: Settings['defaultResponse']['headers'] | undefined): Record<string, string> {
  const out = headerMap() as Record<string, string>;
  const pairs = !h
    ? []
    : Array.isArray(h)
      ? h.map((x): [string, string] => [x.key, x.value])
      : Object.entries(h);
  for (const [k, v] of pairs) {
    const name = k.toLowerCase();
    if (name !== 'content-length' && name !== 'transfer-encoding' && isSafeHeaderValue(v)) out[name] = v;
  }
  return out;
}

/** The friendly answer for a path nothing is configured for, or the endpoint's `defaultResponse`. */
export function defaultAnswer({ record: ep, settings }: Endpoint, method: string, pathname: string): Answer {
  const custom = customDefaultResponse(settings.defaultResponse);
  if (custom) {
    const headers = headerObject(custom.headers);
    headers['content-type'] ??= TEXT_TYPE;
    return { status: custom.status ?? 200, headers, body: custom.body ?? '' };
  }
  return {
    status: 200,
    headers: { 'content-type': TEXT_TYPE },
    body:
      `Mockingbird endpoint "${ep.name}" has nothing configured for ${method} ${pathname} yet. ` +
      `Add a rule with POST /api/v2/endpoints/${ep.name}/rules or in the dashboard.\n`,
  };
}

const DAY_MS = 86_400_000;

/**
 * The plan's daily quota (SPEC §10): requests of the current UTC day, counted per endpoint by the
 * shared rate limiter (the day is in the key, so every instance counts the same day; the window of a
 * day ends at midnight UTC). Over the quota: 429 quota_exceeded, recorded as `rejected`.
 */
export function quotaStep(ctx: Pick<MockDeps, 'config' | 'limiter' | 'now'>): MockStep {
  // A plan without a quota passes at once (no promise, no turn of the event loop).
  return ({ endpoint }) => {
    const limit = endpoint.plan.requestsPerDay;
    return limit === null ? undefined : counted(endpoint.record.name, limit);
  };
  async function counted(name: string, limit: number): Promise<Outcome | undefined> {
    const now = ctx.now();
    const day = new Date(now).toISOString().slice(0, 10);
    const decision = await ctx.limiter.hit(`quota:${name}:${day}`, limit, DAY_MS);
    if (decision.allowed) return undefined;
    return {
      behavior: 'rejected',
      answer: rateLimitedAnswer(
        decision,
        now,
        `Endpoint "${name}" has used its ${limit} requests of the day (UTC).`,
        { code: 'quota_exceeded' },
      ),
    };
  }
}

/** The last step: the default response always answers. */
export const defaultStep: MockStep = ({ endpoint, request }) => ({
  answer: defaultAnswer(endpoint, request.method, request.pathname),
  behavior: 'default',
});

/**
 * The pipeline every user endpoint runs, in the order of SPEC §5: a CORS preflight (when the
 * endpoint shares its answers with origins; browsers send preflights without client certificates),
 * the client certificate (`mtls.enabled`, SPEC §11), the security header, the endpoint's rate limit, the
 * plan's quota, the rules, then the default response. Every answer carries the endpoint's CORS headers;
 * those past the guards are checked against its OpenAPI document (contract-step.ts) and get the
 * endpoint's `faults` and `chaos` (chaos.ts).
 * `recordRule` appends what the proxy records (`proxy.record`): the command of src/admin/.
 */
export function mockPipeline(ctx: MockDeps, recordRule: RuleRecorder): EndpointPipeline<Endpoint> {
  return {
    steps: [
      preflightStep(),
      mtlsStep(ctx, (x) => x.endpoint.settings.mtls.enabled),
      securityStep(),
      rateLimitStep(ctx),
      quotaStep(ctx),
      // The request and its answer are checked against the endpoint's OpenAPI document (SPEC §7;
      // `enforce` refuses here, before any rule); the endpoint's `faults` and `chaos` reach every
      // answer from here on (chaos.ts).
      withContract(
        ctx,
        withChaos([rulesStep(ctx), tunnelStep(ctx), proxyStep(ctx, recordRule), oasStep(ctx), defaultStep]),
      ),
    ],
    finish: withCors,
  };
}
