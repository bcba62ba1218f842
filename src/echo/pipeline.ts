/**
 * The echo as an endpoint pipeline: a per-IP rate limit checked before the body is read (over it:
 * 429, not recorded, since the limit exists to protect the service, history writes included), then
 * a CORS preflight answer or the echo document. Every answer carries the limit headers.
 */
import type { EchoDeps } from './deps.js';
import type { EndpointPipeline, Outcome, Step } from '../endpoint/index.js';
import { sensitiveHeaders } from '../history/index.js';
import {
  clientIp,
  corsHeaders,
  isPreflight,
  JSON_TYPE,
  preflightHeaders,
  type AnswerHeaders,
  rateLimitedAnswer,
  redactHeaders,
  type RateDecision,
} from '../http/index.js';
import { ECHO_CORS, echoDocument } from './echo.js';

const OPEN = corsHeaders(ECHO_CORS);
const ALLOW_ORIGIN = OPEN['access-control-allow-origin'];
if (Object.keys(OPEN).join() !== 'access-control-allow-origin' || ALLOW_ORIGIN === undefined)
  throw new Error('openHeaders below writes the echo CORS headers out: keep them in step');

/**
 * The headers of every echo answer the rate limit lets through: OPEN's and the rate limit's (as
 * `rateLimitHeaders` writes them), in one literal of fixed names. Built as `{ ...OPEN,
 * ...rateLimitHeaders() }`, or by adding the three to a copy of OPEN, they cost V8 a runtime call a
 * header on every request (docs/performance.md, "Measurements behind the code").
 */
function openHeaders(d: RateDecision): Record<string, string> {
  return {
    'access-control-allow-origin': ALLOW_ORIGIN!,
    'x-ratelimit-limit': String(d.limit),
    'x-ratelimit-remaining': String(d.remaining),
    'x-ratelimit-reset': String(d.resetAt),
  };
}

/**
 * The echo document's own headers: one object shared by every answer and never written to (the
 * lifecycle copies it to add the rate limit's), not a literal with a spread built per request.
 */
const DOCUMENT_HEADERS: AnswerHeaders = { ...OPEN, 'content-type': JSON_TYPE };

/**
 * The echo shows the sender what it sent, credentials included; the copy the history keeps (and the
 * dashboards see) carries them redacted, like the recorded request headers.
 */
function echoStep(sensitive: ReadonlySet<string>): Step {
  return ({ request }) => {
    if (isPreflight(request.method, request.headers))
      return {
        behavior: 'echo',
        answer: { status: 204, headers: preflightHeaders(ECHO_CORS, request.headers), body: '' },
      };
    const doc = echoDocument(request);
    const outcome: Outcome = {
      behavior: 'echo',
      answer: { status: 200, headers: DOCUMENT_HEADERS, body: JSON.stringify(doc) },
    };
    const redacted = redactHeaders(request.headers, sensitive);
    if (redacted !== request.headers) outcome.recordedBody = JSON.stringify({ ...doc, headers: redacted });
    return outcome;
  };
}

export function echoPipeline(ctx: EchoDeps): EndpointPipeline {
  return {
    beforeBody(raw) {
      const ip = clientIp(raw, raw.headers, ctx.config.trustProxy);
      const hit = ctx.echoLimiter.hit('echo:' + ip, ctx.config.echoRateLimit, 60_000);
      const check = (decision: Exclude<typeof hit, Promise<unknown>>) => {
        const now = ctx.now();
        if (!decision.allowed)
          return {
            refuse: rateLimitedAnswer(
              decision,
              now,
              `More than ${decision.limit} echo requests a minute from ${ip}.`,
              { headers: OPEN },
            ),
          };
        return { headers: openHeaders(decision) };
      };
      return hit instanceof Promise ? hit.then(check) : check(hit); // in-memory and leased hits answer at once
    },
    steps: [echoStep(sensitiveHeaders(ctx.config))],
  };
}
