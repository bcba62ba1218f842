/**
 * The local tunnel's wire protocol (docs/fallback.md, "Local tunnel"), shared by the server side
 * (hub.ts) and the client (client.ts). One WebSocket carries many requests at once, each named by an
 * id the server gives it (a positive 32-bit integer, unique on the connection):
 *
 *   - control frames are JSON text frames, `{ "type": …, "id": … }`;
 *   - body frames are binary: the id as a 4-byte big-endian unsigned integer, then at most
 *     BODY_CHUNK bytes of body.
 *
 * Server → client: `hello` once, then per request `request`, its body frames and `end`; `cancel` when
 * the answer is no longer wanted; `pause` / `resume` to slow a response body down to what the HTTP
 * client reads. Client → server: per request `response` (status and headers), body frames and `end`,
 * or `error` instead at any point.
 *
 * Everything a peer sends is checked here before use: the client is untrusted by the server, and the
 * server by the client.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';

export const PROTOCOL_VERSION = 1;

/** Most body bytes in one binary frame a peer sends. */
export const BODY_CHUNK = 64 * 1024;
/** Largest frame either side accepts (WebSocket `maxPayload`): a frame over it closes the connection. */
export const MAX_FRAME = 1024 * 1024;
/** Most header lines a response may carry. */
export const MAX_HEADERS = 256;

/** Why a local request failed, as the client reports it. */
export type FailureReason = 'refused' | 'failed' | 'timeout';

export interface HelloFrame {
  type: 'hello';
  protocol: number;
  endpoint: string;
  /** Whether the endpoint's `localTunnel` setting is on (off: requests do not come through yet). */
  localTunnel: boolean;
  /** The server pings this often; a client that hears nothing for twice as long reconnects. */
  pingInterval: number;
  maxConcurrent: number;
}

export interface RequestFrame extends RequestHead {
  type: 'request';
  id: number;
}

/** A request as the server hands it to a client (and as one instance hops it to another). */
export interface RequestHead {
  method: string;
  /** Path with query string, as the endpoint sees it. */
  path: string;
  /** Request headers, names in lower case, hop-by-hop ones removed. */
  headers: Record<string, string>;
  /** The original client's address, scheme and Host, for `X-Forwarded-*`. */
  ip: string;
  protocol: 'http' | 'https';
  host: string;
}

export interface ResponseFrame {
  type: 'response';
  id: number;
  status: number;
  /** Header lines in order, a repeated header as several lines. */
  headers: [string, string][];
}

export interface ErrorFrame {
  type: 'error';
  id: number;
  reason: FailureReason;
  message: string;
}

export type ServerFrame =
  HelloFrame | RequestFrame | { type: 'end' | 'cancel' | 'pause' | 'resume'; id: number };

export type ClientFrame = ResponseFrame | ErrorFrame | { type: 'end'; id: number };

/** A binary body frame for request `id`. */
export function bodyFrame(id: number, chunk: Buffer): Buffer {
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(id, 0);
  return Buffer.concat([head, chunk]);
}

/** Splits a binary frame into its request id and body bytes; undefined when it is too short. */
export function readBodyFrame(frame: Buffer): { id: number; chunk: Buffer } | undefined {
  if (frame.length < 4) return undefined;
  return { id: frame.readUInt32BE(0), chunk: frame.subarray(4) };
}

/** `buf` as frames of at most BODY_CHUNK bytes. */
export function* chunks(buf: Buffer): Generator<Buffer> {
  for (let i = 0; i < buf.length; i += BODY_CHUNK) yield buf.subarray(i, i + BODY_CHUNK);
}

function isId(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 0xffffffff;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function validHeader(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}

/** A client's control frame, checked; a string saying what is wrong otherwise. */
export function parseClientFrame(text: string): ClientFrame | string {
  const f = parseJson(text);
  if (!f) return 'a control frame must be a JSON object';
  if (!isId(f['id'])) return 'a control frame needs a request id';
  const id = f['id'];
  switch (f['type']) {
    case 'end':
      return { type: 'end', id };
    case 'error': {
      const reason = f['reason'];
      if (reason !== 'refused' && reason !== 'failed' && reason !== 'timeout')
        return 'error.reason must be refused, failed or timeout';
      const message = typeof f['message'] === 'string' ? f['message'].slice(0, 500) : '';
      return { type: 'error', id, reason, message };
    }
    case 'response': {
      const status = f['status'];
      if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599)
        return 'response.status must be a whole number from 200 to 599';
      const raw = f['headers'];
      if (!Array.isArray(raw) || raw.length > MAX_HEADERS)
        return `response.headers must be a list of at most ${MAX_HEADERS} [name, value] pairs`;
      const headers: [string, string][] = [];
      for (const h of raw as unknown[]) {
        if (!Array.isArray(h) || h.length !== 2 || typeof h[0] !== 'string' || typeof h[1] !== 'string')
          return 'response.headers must be a list of [name, value] pairs';
        if (!validHeader(h[0], h[1])) return `response header "${h[0].slice(0, 100)}" is not valid`;
        headers.push([h[0], h[1]]);
      }
      return { type: 'response', id, status, headers };
    }
    default:
      return 'unknown control frame type';
  }
}

/** A server's control frame, checked; a string saying what is wrong otherwise. */
export function parseServerFrame(text: string): ServerFrame | string {
  const f = parseJson(text);
  if (!f) return 'a control frame must be a JSON object';
  const type = f['type'];
  if (type === 'hello') {
    if (typeof f['protocol'] !== 'number' || typeof f['endpoint'] !== 'string') return 'hello is malformed';
    return {
      type,
      protocol: f['protocol'],
      endpoint: f['endpoint'],
      localTunnel: f['localTunnel'] === true,
      pingInterval: typeof f['pingInterval'] === 'number' ? f['pingInterval'] : 15_000,
      maxConcurrent: typeof f['maxConcurrent'] === 'number' ? f['maxConcurrent'] : 100,
    };
  }
  if (!isId(f['id'])) return 'a control frame needs a request id';
  const id = f['id'];
  if (type === 'end' || type === 'cancel' || type === 'pause' || type === 'resume') return { type, id };
  if (type !== 'request') return 'unknown control frame type';
  const head = parseRequestHead(f);
  return typeof head === 'string' ? head : { type, id, ...head };
}

/** A request's head (a request frame's, or a hop's), checked; a string saying what is wrong otherwise. */
export function parseRequestHead(f: Record<string, unknown>): RequestHead | string {
  const { method, path, headers, ip, protocol, host } = f;
  if (typeof method !== 'string' || !/^[A-Z0-9!#$%&'*+.^_`|~-]{1,32}$/i.test(method))
    return 'request.method is not valid';
  if (typeof path !== 'string' || !path.startsWith('/')) return 'request.path must start with /';
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers))
    return 'request.headers must be an object';
  // No prototype: a header name from the server is data (`__proto__`, `constructor`).
  const checked = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(headers as Record<string, unknown>))
    if (typeof v === 'string' && validHeader(k, v)) checked[k] = v;
  return {
    method,
    path,
    headers: checked,
    ip: typeof ip === 'string' ? ip : '',
    protocol: protocol === 'https' ? 'https' : 'http',
    host: typeof host === 'string' ? host : '',
  };
}
