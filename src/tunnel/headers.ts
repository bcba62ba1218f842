/**
 * The tunnel's headers, between an endpoint's request or answer and the frames of the wire protocol:
 * whatever belongs to one connection stays on this side (RFC 9110 §7.6.1: the hop-by-hop list and every
 * name a `Connection` line lists), in both directions.
 */
import {
  addHeader,
  headerMap,
  hopByHopNames,
  type AnswerHeaders,
  type CapturedRequest,
} from '../http/index.js';
import type { RequestHead, ResponseFrame } from './protocol.js';

/** What the tunnel passes on of a captured request (its body aside). */
export function requestHead(request: CapturedRequest): RequestHead {
  return {
    method: request.method,
    path: request.path,
    headers: forwardedHeaders(request),
    ip: request.ip,
    protocol: request.protocol,
    host: request.host,
  };
}

/**
 * The headers passed to the local service: the request's, less what belongs to this hop (RFC 9110
 * §7.6.1: the fixed list and every name any `Connection` line of the request lists).
 */
export function forwardedHeaders(request: CapturedRequest): Record<string, string> {
  const raw = request.rawHeaders;
  const connection: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection') connection.push(raw[i + 1]!);
  const drop = hopByHopNames(connection);
  // Names are the client's: a map without a prototype, so `__proto__` is a header like any other.
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(request.headers))
    if (!drop.has(k) && k !== 'content-length') out[k] = v;
  return out;
}

/** A response frame's header lines as Answer headers (repeats a list), less hop-by-hop and Connection-listed. */
export function answerHeaders(lines: ResponseFrame['headers']): AnswerHeaders {
  const drop = hopByHopNames(lines.filter(([n]) => n.toLowerCase() === 'connection').map(([, v]) => v));
  // Names are the tunnel peer's: a map without a prototype (headerMap), so `__proto__` is data.
  const out = headerMap();
  for (const [name, value] of lines) {
    const k = name.toLowerCase();
    if (!drop.has(k)) addHeader(out, k, value);
  }
  return out;
}
