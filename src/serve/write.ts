/**
 * The one writer of endpoint answers, on Node's raw response. What it adds to an answer, and nothing
 * else (docs/architecture.md, "two decisions"):
 *
 * - a missing Content-Type: `text/plain; charset=utf-8` for a text body, `application/octet-stream`
 *   for bytes (a streamed body gets none);
 * - the JSON charset rule: a text body whose media type is JSON (`application/json` or a `+json`
 *   suffix, as `isJsonType` reads request bodies) and which names no charset is labelled
 *   `; charset=utf-8`, the bytes it is written as. A charset the answer names is passed on as
 *   written, whatever it says: a text body is always written as UTF-8 (an answer in another encoding
 *   is a byte body), and a mock may label it as the client under test expects. A Content-Type is
 *   otherwise never parsed, changed or replaced;
 * - Content-Length, the body's size (a HEAD answer keeps one the answer gives: it describes the GET);
 * - for 1xx and 204, no Content-Type, no Content-Length and no body.
 *
 * Node itself sends no body for HEAD, 204 and 304.
 */
import type { ServerResponse } from 'node:http';
import { headerMap, isJsonType, TEXT_TYPE, type Answer, type HeaderValue } from '../http/index.js';

const OCTET = 'application/octet-stream';
const CHARSET = /;\s*charset\s*=/i;

let last: { type: string; sent: string } | undefined;

/** The Content-Type a text body is sent with, `type` being the answer's (most answers repeat the last). */
export function sentType(type: string): string {
  if (last?.type === type) return last.sent;
  const sent = isJsonType(type) && !CHARSET.test(type) ? `${type}; charset=utf-8` : type;
  last = { type, sent };
  return sent;
}

/** Whether `status` is one that carries no Content-Type, Content-Length or body. */
export function bodiless(status: number): boolean {
  return status < 200 || status === 204;
}

/** `a`'s headers with the Content-Type it is sent with (a fresh map; no Content-Length added). */
export function typedHeaders(a: Answer): Record<string, HeaderValue> {
  const headers = Object.assign(headerMap(), a.headers);
  const text = typeof a.body === 'string';
  const type = headers['content-type'];
  if (type === undefined) headers['content-type'] = text ? TEXT_TYPE : OCTET;
  else if (text && typeof type === 'string') headers['content-type'] = sentType(type);
  return headers;
}

/**
 * Writes `a` (its whole body) on `res`. Throws, nothing written, when Node refuses a header (a value
 * past U+00FF): the caller answers with the error instead.
 */
export function writeWhole(res: ServerResponse, method: string | undefined, a: Answer): void {
  const { status, body } = a;
  if (bodiless(status)) {
    const headers = Object.assign(headerMap(), a.headers);
    delete headers['content-type'];
    delete headers['content-length'];
    res.writeHead(status, headers as Record<string, HeaderValue> as Record<string, string | string[]>);
    a.onWrite?.(res);
    res.end();
    return;
  }
  const headers = typedHeaders(a);
  if (method !== 'HEAD' || headers['content-length'] === undefined)
    headers['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(status, headers as Record<string, string | string[]>);
  a.onWrite?.(res);
  res.end(body);
}

/**
 * Writes the status and headers of a streamed answer at once (an upstream's first byte may take
 * seconds); the caller pipes the body. Throws as `writeWhole` does. Returns false for a status that
 * carries no body (the stream is then drained, not sent).
 */
export function writeStreamHead(res: ServerResponse, a: Answer): boolean {
  const headers = Object.assign(headerMap(), a.headers);
  const none = bodiless(a.status);
  if (none) {
    delete headers['content-type'];
    delete headers['content-length'];
  }
  res.writeHead(a.status, headers as Record<string, string | string[]>);
  a.onWrite?.(res);
  if (none) res.end();
  else res.flushHeaders();
  return !none;
}
