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
 * a second spread through a runtime call (about 20 times as slow for the echo's five headers in a
 * micro-benchmark; the echo's former `{ ...OPEN, ...rateLimitHeaders() }` cost about 12k
 * instructions a request under callgrind).
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

/**
 * Writes `a` as `sendAnswer` would, straight to the response: for the endpoint lifecycle, whose scope
 * has no onSend hook for Fastify's send to run. The bytes on the wire are the same (test/http/
 * reply-direct.test.ts compares them); the work is less: Fastify copies the headers one call a header
 * and parses the content type on every answer (about 4k instructions a request of the echo under
 * callgrind). Fastify's onResponse hooks still run (the request log line): they listen for the
 * response's `finish`. Whatever Fastify's send would change or treat apart goes through `sendAnswer`:
 * a content type missing or not of the simple forms Fastify is known to keep (type/subtype, with a
 * charset or none; a JSON one on a text body gets its charset as Fastify adds it), a status without
 * a body (1xx, 204, 304), HEAD, a preset Content-Length, a stream.
 */
export function replyDirect(reply: FastifyReply, a: Answer): FastifyReply {
  return writeDirect(reply.raw, reply.request.method, a, () => reply.hijack()) ? reply : sendAnswer(reply, a);
}

/**
 * `replyDirect` on a raw response: writes `a` and returns true, or writes nothing and returns false
 * for an answer only Fastify's send writes as it should (the cases `replyDirect` lists). `beforeEnd`
 * runs once the head is accepted, before the body is sent.
 */
export function writeDirect(
  res: ServerResponse,
  method: string | undefined,
  a: Answer,
  beforeEnd?: () => void,
): boolean {
  const { status, body } = a;
  const type = a.headers['content-type'];
  const text = typeof body === 'string';
  const sent = typeof type === 'string' && (text || Buffer.isBuffer(body)) ? sentType(type, text) : undefined;
  if (
    sent === undefined ||
    a.stream !== undefined ||
    !Number.isInteger(status) ||
    status < 200 ||
    status > 599 ||
    status === 204 ||
    status === 304 ||
    method === 'HEAD' ||
    a.headers['content-length'] !== undefined
  )
    return false;
  const headers = Object.assign(headerMap(), a.headers);
  if (sent !== type) headers['content-type'] = sent;
  headers['content-length'] = String(Buffer.byteLength(body));
  try {
    res.writeHead(status, headers as Record<string, string | string[]>);
  } catch {
    // A header Node refuses to write (nothing is sent): Fastify's send meets the same error and
    // answers it as it always has.
    return false;
  }
  a.onWrite?.(res);
  beforeEnd?.();
  res.end(body);
  return true;
}

/** A media type and an optional charset, as Fastify's content-type parser reads them. */
const TOKEN = "[\\w!#$%&'*+.^`|~-]+";
const PLAIN_TYPE = new RegExp(`^${TOKEN}/${TOKEN}$`);
const TYPE_WITH_CHARSET = new RegExp(`^${TOKEN}/${TOKEN};[ \\t]*charset=${TOKEN}$`, 'i');
let lastType: { type: string; text: boolean; sent: string | undefined } | undefined;

/**
 * The Content-Type Fastify's send writes for this one: the same, or, on a text body, a JSON type
 * without a charset with `; charset=utf-8` added (Fastify writes the type in lower case then).
 * Undefined for any other (Fastify replaces one it cannot parse; the caller leaves it to Fastify).
 * The last answer's type is kept: most answers repeat it.
 */
function sentType(type: string, text: boolean): string | undefined {
  if (lastType?.type === type && lastType.text === text) return lastType.sent;
  let sent: string | undefined;
  if (TYPE_WITH_CHARSET.test(type)) sent = type;
  else if (PLAIN_TYPE.test(type))
    sent = text && /json/i.test(type) ? `${type.toLowerCase()}; charset=utf-8` : type;
  lastType = { type, text, sent };
  return sent;
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
