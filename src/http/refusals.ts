/**
 * The answers every part of the service gives when it refuses a request for its size or its rate:
 * 413 `payload_too_large` and 429 (`rate_limited`, `quota_exceeded`) with the `X-RateLimit-*` headers.
 * One place, so that the echo, the TOTP API, the endpoint pipeline and the `Expect: 100-continue`
 * check answer alike.
 */
import { AppError } from '../errors.js';
import { errorAnswer, type Answer, type AnswerHeaders } from './answer.js';
import { rateLimitHeaders, type RateDecision } from './rate-limit.js';

/** 413 for a body over `limit` bytes. */
export function tooLargeAnswer(limit: number, headers: AnswerHeaders = {}): Answer {
  return errorAnswer(413, 'payload_too_large', `The request body is larger than ${limit} bytes.`, headers);
}

/** 429 for a refused rate-limit decision: `Retry-After`, the `X-RateLimit-*` headers and the error body. */
export function rateLimitedAnswer(
  decision: RateDecision,
  now: number,
  message: string,
  options: { code?: 'rate_limited' | 'quota_exceeded'; headers?: AnswerHeaders } = {},
): Answer {
  return errorAnswer(429, options.code ?? 'rate_limited', message, {
    ...options.headers,
    ...rateLimitHeaders(decision, now),
  });
}

/** The same 429 as an error to throw from a Fastify route (the error handler writes it). */
export function rateLimitedError(decision: RateDecision, now: number, message: string): AppError {
  return new AppError('rate_limited', message, { headers: rateLimitHeaders(decision, now) });
}
