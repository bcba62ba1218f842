/**
 * The answer to a request, as every part of the request path builds it: a status, headers and a
 * body. A header may repeat (two `Set-Cookie` from a proxied upstream are two header lines, never one
 * joined value), so a value is a string or a list of strings. Endpoint answers are written by the
 * endpoint plane's door (serve/); the management plane's by `sendAnswer` through Fastify, and early
 * refusals by `writeAnswer` on a raw response.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { errorBody, type ErrorCode } from '../errors.js';

export type HeaderValue = string | readonly string[];

/**
 * The ways an answer can fail on purpose, written at the socket level by the endpoint plane's door
 * (serve/fault.ts): `connection_reset` (an RST), `empty_response` (closed before a byte),
 * `malformed_chunk` (a head, then a chunk whose size line is not hex), `random_data_then_close`
 * (bytes that are not HTTP), `timeout` (nothing, until the client gives up or FAULT_TIMEOUT_MAX).
 */
export const FAULTS = [
  'connection_reset',
  'empty_response',
  'malformed_chunk',
  'random_data_then_close',
  'timeout',
] as const;
export type Fault = (typeof FAULTS)[number];

/** A body sent in `chunks` pieces spread over `totalMs` (the dribble, serve/dribble.ts). */
export interface Dribble {
  chunks: number;
  totalMs: number;
}

/**
 * Response headers, names in lower case. A name comes from a peer (a tunnel client, an upstream, a
 * stored rule): every map built here has no prototype (`headerMap`), so `__proto__` or `constructor`
 * is a header like any other, never a key that reaches Object.prototype.
 */
export type AnswerHeaders = Record<string, HeaderValue>;

/** An empty header map without a prototype (from a literal: fast properties, as parse.ts `dict`). */
export function headerMap(): Record<string, HeaderValue> {
  return Object.setPrototypeOf({}, null) as Record<string, HeaderValue>;
}

/** Adds one header line to `out` (a null-prototype map): a repeated name becomes a list, in order. */
export function addHeader(out: Record<string, HeaderValue>, name: string, value: string): void {
  const prev = Object.hasOwn(out, name) ? out[name] : undefined;
  out[name] = prev === undefined ? value : typeof prev === 'string' ? [prev, value] : [...prev, value];
}

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
  /**
   * Called with the response that is about to carry the answer, once, by whichever writer sends it
   * (an answer that holds memory until it has left the process ties its release to it).
   */
  onWrite?: (res: ServerResponse) => void;
  /** Instead of the answer, this fault is written on the socket (the rest is what the history records). */
  fault?: Fault;
  /** The whole body, dribbled in chunks rather than sent at once. */
  chunked?: Dribble;
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
    headers: Object.assign(headerMap(), headers, { 'content-type': JSON_TYPE }),
    body: JSON.stringify(errorBody(code, message)),
  };
}

/**
 * `a` with `extra` added to its headers (over a header of the same name), in a fresh header object:
 * `a`'s may be shared. Object.assign, not `{ ...a.headers, ...extra }`: V8 defines each property of
 * a second spread through a runtime call (docs/performance.md, "Measurements behind the code").
 */
export function withHeaders(a: Answer, extra: AnswerHeaders): Answer {
  // Object.assign sets `__proto__` through Object.prototype's setter; a spread defines it as a field.
  if (Object.hasOwn(a.headers, '__proto__') || Object.hasOwn(extra, '__proto__'))
    return { ...a, headers: { ...a.headers, ...extra } };
  return { ...a, headers: Object.assign({}, a.headers, extra) };
}

/**
 * Sets `headers` on a Fastify reply. Fastify keeps its headers in a plain object, where a
 * `__proto__` name would set the object's prototype: that one goes to Node's own header map
 * (null-prototype, merged by writeHead) instead.
 */
export function replyHeaders(reply: FastifyReply, headers: AnswerHeaders): FastifyReply {
  for (const name of Object.keys(headers)) {
    const v = headers[name] as string | string[];
    if (name === '__proto__') reply.raw.setHeader(name, v);
    else reply.header(name, v);
  }
  return reply;
}

/** Writes `a` through Fastify (hooks, the log line and HEAD handling included). */
export function sendAnswer(reply: FastifyReply, a: Answer): FastifyReply {
  a.onWrite?.(reply.raw);
  return replyHeaders(reply.code(a.status), a.headers).send(a.body);
}

/** Writes `a` on a raw response (answers given before Fastify sees the request). */
export function writeAnswer(res: ServerResponse, a: Answer, extra: AnswerHeaders = {}): void {
  const body = typeof a.body === 'string' ? Buffer.from(a.body, 'utf8') : a.body;
  a.onWrite?.(res);
  const headers = Object.assign(headerMap(), a.headers, extra, { 'content-length': String(body.length) });
  res.writeHead(a.status, headers as Record<string, string | string[]>);
  res.end(body);
}

/** A header's values as a list (for matching, redaction, history). */
export function headerValues(v: HeaderValue | undefined): readonly string[] {
  return v === undefined ? [] : typeof v === 'string' ? [v] : v;
}
