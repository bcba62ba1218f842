/**
 * The captured request: built once per request to an endpoint, then read by the echo, rule matching,
 * templates, proxy, tunnel and history alike. Nothing downstream parses the request a second time.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { randomUUID } from 'node:crypto';
import { addMulti, dict, parseBody, type ParsedBody, type UploadedFile } from './parse.js';

export interface CapturedRequest {
  readonly id: string;
  /** Epoch milliseconds at which the request arrived. */
  readonly receivedAt: number;
  readonly method: string;
  readonly protocol: 'http' | 'https';
  /** The Host header as sent (port included). */
  readonly host: string;
  /** Path with query string, as the endpoint sees it (the `/e/<name>` prefix removed). */
  readonly path: string;
  /** Path without the query string. */
  readonly pathname: string;
  readonly ip: string;
  /** Lower-cased names; for a repeated header the last value. Null prototype. */
  readonly headers: Readonly<Record<string, string>>;
  /** Lower-cased names of headers sent more than once, in order of first appearance. */
  readonly duplicateHeaders: readonly string[];
  /** `{}` when there is no query; a repeated key maps to an array. Null prototype. */
  readonly query: Readonly<Record<string, string | string[]>>;
  readonly contentType: string | undefined;
  readonly rawBody: Buffer;
  readonly body: ParsedBody;
  readonly files: readonly UploadedFile[];
  /** Every diagnostic the echo reports, in the seed's exact wording. */
  readonly warnings: readonly string[];
}

export interface CaptureOptions {
  trustProxy: boolean;
}

/** Lower-cases header names; the last value of a repeated header wins. Also lists the duplicates. */
export function collectHeaders(rawHeaders: readonly string[]): {
  headers: Record<string, string>;
  duplicates: string[];
} {
  const headers = dict<string>();
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (seen.has(name)) {
      if (!duplicates.includes(name)) duplicates.push(name);
    } else seen.add(name);
    headers[name] = rawHeaders[i + 1]!;
  }
  return { headers, duplicates };
}

/** Parses the query string of `path` (SPEC §2 shape). */
export function parseQuery(path: string): Record<string, string | string[]> {
  const q = path.indexOf('?');
  const out = dict<string | string[]>();
  if (q === -1) return out;
  for (const [k, v] of new URLSearchParams(path.slice(q + 1))) addMulti(out, k, v);
  return out;
}

/** The client address without port; IPv4-mapped IPv6 addresses shown as IPv4. */
export function clientIp(req: IncomingMessage, headers: Record<string, string>, trustProxy: boolean): string {
  if (trustProxy) {
    const fwd = headers['x-forwarded-for'];
    if (fwd) {
      const first = fwd.split(',')[0]!.trim();
      if (first) return first;
    }
  }
  const addr = req.socket.remoteAddress ?? '';
  return addr.startsWith('::ffff:') ? addr.slice(7) : addr;
}

function protocolOf(
  req: IncomingMessage,
  headers: Record<string, string>,
  trustProxy: boolean,
): 'http' | 'https' {
  if (trustProxy) {
    const p = headers['x-forwarded-proto']?.split(',')[0]?.trim().toLowerCase();
    if (p === 'https' || p === 'http') return p;
  }
  return (req.socket as TLSSocket).encrypted ? 'https' : 'http';
}

/** Builds the one CapturedRequest for `req`, whose body has already been read into `rawBody`. */
export async function captureRequest(
  req: IncomingMessage,
  path: string,
  rawBody: Buffer,
  options: CaptureOptions,
): Promise<CapturedRequest> {
  const { headers, duplicates } = collectHeaders(req.rawHeaders);
  const method = (req.method ?? 'GET').toUpperCase();
  const contentType = headers['content-type'];
  const body = await parseBody(method, contentType, rawBody);
  const q = path.indexOf('?');
  const warnings = [...body.warnings, ...duplicates.map((d) => `Duplicate headers found: ${d}`)];
  return {
    id: randomUUID(),
    receivedAt: Date.now(),
    method,
    protocol: protocolOf(req, headers, options.trustProxy),
    host: headers['host'] ?? '',
    path,
    pathname: q === -1 ? path : path.slice(0, q),
    ip: clientIp(req, headers, options.trustProxy),
    headers,
    duplicateHeaders: duplicates,
    query: parseQuery(path),
    contentType,
    rawBody,
    body,
    files: body.files,
    warnings,
  };
}
