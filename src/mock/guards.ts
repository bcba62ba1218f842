/**
 * The steps that guard a user endpoint before any rule runs (SPEC §5 steps 1–2, §4 `cors`):
 * a CORS preflight answered from the endpoint's `cors.origins` (browsers send preflights without the
 * endpoint's security header), the security header (562), and the endpoint's own rate limit (429).
 * Refused requests are recorded with behavior `rejected`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { MockDeps } from './deps.js';
import type { Outcome } from '../endpoint/index.js';
import {
  corsHeaders,
  isPreflight,
  preflightHeaders,
  rateLimitedAnswer,
  TEXT_TYPE,
  withHeaders,
  type CorsPolicy,
} from '../http/index.js';
import type { Settings } from './settings.js';
import type { MockExchange, MockStep } from './endpoint-settings.js';

/** Every method a rule may answer, advertised to preflights (a requested other method is added). */
const RULE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE'];

/** The endpoint's CORS policy, or undefined when `cors.origins` is empty (no CORS headers at all). */
export function corsPolicyOf(s: Settings): CorsPolicy | undefined {
  if (s.cors.origins.length === 0) return undefined;
  return { origins: s.cors.origins, methods: RULE_METHODS, anyMethod: true, maxAge: 86400 };
}

/** A CORS preflight to an endpoint with `cors.origins`: 204 with the policy's headers. */
export function preflightStep(): MockStep {
  return (x) => {
    const policy = corsPolicyOf(x.endpoint.settings);
    if (!policy || !isPreflight(x.request.method, x.request.headers)) return undefined;
    return {
      behavior: 'default',
      answer: { status: 204, headers: preflightHeaders(policy, x.request.headers), body: '' },
    };
  };
}

/** Adds the endpoint's CORS headers to an answer (a fresh header object). */
export function withCors(x: MockExchange, o: Outcome): Outcome {
  const policy = corsPolicyOf(x.endpoint.settings);
  if (!policy) return o;
  return { ...o, answer: withHeaders(o.answer, corsHeaders(policy, x.request.headers)) };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The security header: when enabled, the header must be present with its value, else 562 text/plain. */
export function securityStep(): MockStep {
  return (x) => {
    const { enabled, headerKey, headerValue } = x.endpoint.settings.security;
    if (!enabled || headerKey === '') return undefined;
    const sent = x.request.headers[headerKey.toLowerCase()];
    if (sent !== undefined && sameText(sent, headerValue)) return undefined;
    return {
      behavior: 'rejected',
      answer: {
        status: 562,
        headers: { 'content-type': TEXT_TYPE },
        body: `This endpoint requires the header ${headerKey} with its configured value; the request ${
          sent === undefined ? 'did not send it' : 'sent another value'
        }.\n`,
      },
    };
  };
}

const PERIOD_MS = { Second: 1000, Minute: 60_000, Hour: 3_600_000 } as const;

/**
 * The endpoint's rate limit: `rate` requests per fixed `period` window, counted per endpoint across
 * every client (the shared limiter, so every instance counts the same window). Over it: 429 with the
 * X-RateLimit-* headers.
 */
export function rateLimitStep(ctx: Pick<MockDeps, 'limiter' | 'now'>): MockStep {
  // An endpoint without a rate limit passes at once (no promise, no turn of the event loop).
  return (x) => {
    const { enabled, rate, period } = x.endpoint.settings.rateLimit;
    return enabled ? limited(x, rate, period) : undefined;
  };
  async function limited(x: MockExchange, rate: number, period: string): Promise<Outcome | undefined> {
    const decision = await ctx.limiter.hit(
      `endpoint:${x.endpoint.record.name}:${period}`,
      rate,
      PERIOD_MS[period as keyof typeof PERIOD_MS],
    );
    if (decision.allowed) return undefined;
    return {
      behavior: 'rejected',
      answer: rateLimitedAnswer(
        decision,
        ctx.now(),
        `Endpoint "${x.endpoint.record.name}" allows ${rate} requests a ${period.toLowerCase()}.`,
      ),
    };
  }
}
