/**
 * Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, not the message, so whatever
 * passes a message on (the proxy, a recorded answer replayed as a rule) leaves them out, and with them
 * every name the `Connection` header lists.
 */
import { headerMap, headerValues, type AnswerHeaders, type HeaderValue } from './answer.js';

export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The names that do not travel past this hop: the fixed list plus those `Connection` names. */
export function hopByHopNames(connection: HeaderValue | undefined): Set<string> {
  const names = new Set(HOP_BY_HOP);
  for (const v of headerValues(connection))
    for (const n of v.split(',')) if (n.trim() !== '') names.add(n.trim().toLowerCase());
  return names;
}

/** `headers` (names in lower case) without their hop-by-hop ones. */
export function withoutHopByHop(headers: AnswerHeaders): AnswerHeaders {
  const drop = hopByHopNames(headers['connection']);
  const out = headerMap();
  for (const [k, v] of Object.entries(headers)) if (!drop.has(k)) out[k] = v;
  return out;
}
