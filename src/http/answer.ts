/**
 * The answer to a request, as every part of the request path builds it: a status, headers and a
 * body. A header may repeat (two `Set-Cookie` from a proxied upstream are two header lines, never one
 * joined value), so a value is a string or a list of strings. Answers are written by `sendAnswer`
 * through Fastify, or by `writeAnswer` on a raw response where Fastify is not involved.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { errorBody, type ErrorCode } from '../errors.js';

export type HeaderValue = string | readonly string[];

/** Response headers, names in lower case. */
export type AnswerHeaders = Record<string, HeaderValue>;

export interface Answer {
  status: number;
  headers: AnswerHeaders;
  /** The body; with `stream` set, what was known before streaming (usually empty). */
  body: string | Buffer;
  /**
   * A body that arrives while it is sent (a proxied upstream, a tunnelled local service). The
   * endpoint lifecycle sends it as it comes and records its first CAPTURE_LIMIT bytes once it ends.
   */
  stream?: Readable;
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

/** An answer carrying the JSON error body of SPEC §4 for `code`. */
export function errorAnswer(
  status: number,
  code: ErrorCode,
  message: string,
  headers: AnswerHeaders = {},
): Answer {
  return {
    status,
    headers: { ...headers, 'content-type': JSON_TYPE },
    body: JSON.stringify(errorBody(code, message)),
  };
}

/**
 * `a` with `extra` added to its headers (over a header of the same name), in a fresh header object:
 * `a`'s may be shared. Object.assign, not `{ ...a.headers, ...extra }`: V8 defines each property of
 * a second spread through a runtime call (about 20 times as slow for the echo's five headers in a
 * micro-benchmark; the echo's former `{ ...OPEN, ...rateLimitHeaders() }` cost about 12k
 * instructions a request under callgrind).
 */
export function withHeaders(a: Answer, extra: AnswerHeaders): Answer {
  return { ...a, headers: Object.assign({}, a.headers, extra) };
}

/** Writes `a` through Fastify (hooks, the log line and HEAD handling included). */
export function sendAnswer(reply: FastifyReply, a: Answer): FastifyReply {
  return reply
    .code(a.status)
    .headers(a.headers as Record<string, string | string[]>)
    .send(a.body);
}

/** Writes `a` on a raw response (answers given before Fastify sees the request). */
export function writeAnswer(res: ServerResponse, a: Answer, extra: AnswerHeaders = {}): void {
  const body = typeof a.body === 'string' ? Buffer.from(a.body, 'utf8') : a.body;
  res.writeHead(a.status, {
    ...(a.headers as Record<string, string | string[]>),
    ...(extra as Record<string, string | string[]>),
    'content-length': body.length,
  });
  res.end(body);
}

/** A header's values as a list (for matching, redaction, history). */
export function headerValues(v: HeaderValue | undefined): readonly string[] {
  return v === undefined ? [] : typeof v === 'string' ? [v] : v;
}
