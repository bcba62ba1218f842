/**
 * What both carriers of a call (HTTP/2 in h2-call.ts, gRPC-Web in web-call.ts) share: request
 * metadata out of HTTP headers, checks on the metadata a handler sends, the status trailers with
 * `grpc-message` percent-encoded, and running a handler so that every outcome ends the call.
 *
 * Invariants: reserved headers (`:pseudo`, `grpc-*`, `content-type`, `te`, hop-by-hop) are never taken
 * as metadata nor sent as a handler's metadata; a handler's unexpected error ends its call INTERNAL
 * without saying why (no internals on the wire).
 */
import type { CallEnd, GrpcCall, Metadata } from './types.js';
import { CallError, GrpcStatus } from './types.js';

/** A call as the wire gives it: the shared shape plus where it came from. */
export interface WireCall extends GrpcCall {
  /** `:authority` (HTTP/2) or `Host` (HTTP/1.1), as the client sent it. */
  readonly authority: string;
}

/** Serves one call; a handler written against GrpcCall fits. */
export type GrpcHandler = (call: WireCall) => Promise<void>;

/** Bounds of one call. */
export interface CallOptions {
  /** Largest request message, framed or inflated (default DEFAULT_MAX_MESSAGE_BYTES). */
  maxMessageBytes?: number;
  /** Request messages held while the handler does not read (default DEFAULT_MAX_BUFFERED_BYTES). */
  maxBufferedBytes?: number;
}

type HeaderBag = Readonly<Record<string, string | string[] | number | undefined>>;

const RESERVED = new Set([
  'content-type',
  'content-length',
  'te',
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'http2-settings',
]);

/** True for a header the protocol owns, never metadata. */
export function isReservedHeader(key: string): boolean {
  return key.startsWith(':') || key.startsWith('grpc-') || RESERVED.has(key);
}

/** Request metadata from HTTP headers: lower-case keys, repeated values joined by `, `. */
export function requestMetadata(headers: HeaderBag): Metadata {
  const md: Metadata = {};
  for (const [rawKey, value] of Object.entries(headers)) {
    const key = rawKey.toLowerCase();
    if (value === undefined || isReservedHeader(key)) continue;
    md[key] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return md;
}

const KEY = /^[0-9a-z_.-]+$/;
const ASCII_VALUE = /^[\x20-\x7e]*$/;
const BASE64_VALUE = /^[A-Za-z0-9+/]*={0,2}$/;

/** Checks metadata a handler sends; throws CallError(INTERNAL) naming the first bad key. */
export function checkMetadata(md: Metadata | undefined): Metadata {
  if (!md) return {};
  for (const [key, value] of Object.entries(md)) {
    if (!KEY.test(key) || isReservedHeader(key)) {
      throw new CallError(GrpcStatus.INTERNAL, `invalid response metadata key "${key.slice(0, 64)}"`);
    }
    const ok = key.endsWith('-bin') ? BASE64_VALUE.test(value) : ASCII_VALUE.test(value);
    if (!ok) throw new CallError(GrpcStatus.INTERNAL, `invalid value for response metadata "${key}"`);
  }
  return md;
}

/** Percent-encodes a status message per the spec: bytes outside 0x20–0x7E and `%` as `%XX` of UTF-8. */
export function encodeGrpcMessage(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** The trailer fields that end a call: status, message, details (unpadded base64), extra trailers. */
export function statusTrailers(end: CallEnd): Record<string, string> {
  const fields: Record<string, string> = { 'grpc-status': String(end.code) };
  if (end.message) fields['grpc-message'] = encodeGrpcMessage(end.message);
  if (end.details && end.details.length > 0) {
    fields['grpc-status-details-bin'] = Buffer.from(end.details).toString('base64').replace(/=+$/, '');
  }
  Object.assign(fields, checkMetadata(end.trailers));
  return fields;
}

/** A valid status code for the wire: an integer 0–16, else UNKNOWN. */
export function wireCode(code: number): number {
  return Number.isInteger(code) && code >= 0 && code <= 16 ? code : GrpcStatus.UNKNOWN;
}

/** The end a thrown error means: a CallError keeps its status; anything else is INTERNAL, unexplained. */
export function endFor(err: unknown): CallEnd {
  if (err instanceof CallError) return { code: wireCode(err.code), message: err.message };
  return { code: GrpcStatus.INTERNAL, message: 'internal error' };
}

/**
 * Runs `handler` on `call`; a handler that returns without ending ends OK, one that throws ends with
 * endFor(error). `end` of a call that already ended is ignored by the call itself.
 */
export async function runHandler(call: WireCall, handler: GrpcHandler): Promise<void> {
  try {
    await handler(call);
    call.end({ code: GrpcStatus.OK });
  } catch (err) {
    call.end(endFor(err));
  }
}
