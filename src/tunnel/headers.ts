/**
 * The tunnel's headers, between an endpoint's request or answer and the frames of the wire protocol:
 * whatever belongs to one connection stays on this side (RFC 9110 §7.6.1: the hop-by-hop list and every
 * name a `Connection` line lists), in both directions.
 */
import { hopByHopNames, type AnswerHeaders, type CapturedRequest } from '../http/index.js';
import type { ResponseFrame } from './protocol.js';

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
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers))
    if (!drop.has(k) && k !== 'content-length') out[k] = v;
  return out;
}

/** A response frame's header lines as Answer headers (repeats a list), less hop-by-hop and Connection-listed. */
export function answerHeaders(lines: ResponseFrame['headers']): AnswerHeaders {
  const drop = hopByHopNames(lines.filter(([n]) => n.toLowerCase() === 'connection').map(([, v]) => v));
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of lines) {
    const k = name.toLowerCase();
    if (drop.has(k)) continue;
    const prev = out[k];
    out[k] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}
