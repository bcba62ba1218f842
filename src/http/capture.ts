/**
 * The captured request: built once per request to an endpoint, then read by the echo, rule matching,
 * templates, proxy, tunnel and history alike. Nothing downstream parses the request a second time.
 */
import type { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { requestId } from './request-id.js';
import { isIP, isIPv4, type Socket } from 'node:net';
import { addMulti, dict, parseBody, type ParsedBody, type UploadedFile } from './parse.js';

export interface CapturedRequest {
  readonly id: string;
  /** Epoch milliseconds at which the request arrived. */
  readonly receivedAt: number;
  readonly method: string;
  readonly protocol: 'http' | 'https';
  /** `1.1` or `1.0`, as the request line said. */
  readonly httpVersion: string;
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
  /** Names and values as sent, alternating (Node's rawHeaders): what a proxy forwards, repeats kept. */
  readonly rawHeaders: readonly string[];
  /** `{}` when there is no query; a repeated key maps to an array. Null prototype. */
  readonly query: Readonly<Record<string, string | string[]>>;
  readonly contentType: string | undefined;
  readonly rawBody: Buffer;
  readonly body: ParsedBody;
  readonly files: readonly UploadedFile[];
  /** Every diagnostic the echo reports, in the seed's exact wording. */
  readonly warnings: readonly string[];
  /**
   * On a TLS connection: the certificate the client presented, parsed when called (only an endpoint
   * that checks client certificates pays for it), or undefined when it sent none. Absent over plain
   * HTTP. A TLS-terminating proxy in front of the server hides the client's certificate.
   */
  readonly peerCertificate?: () => X509Certificate | undefined;
  /**
   * Set only for a gRPC call (SPEC §13), by the gRPC plane: `method` is `pkg.Service/Method`, what a
   * `grpc_method` condition compares. Its metadata are the `headers`, its request message the body
   * (JSON). Absent on every HTTP request.
   */
  readonly grpc?: { readonly method: string };
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
  let repeated = false;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (headers[name] !== undefined) repeated = true;
    headers[name] = rawHeaders[i + 1]!;
  }
  return { headers, duplicates: repeated ? duplicateNames(rawHeaders) : [] };
}

/** Names sent more than once, in order of first appearance (rare: counted only when needed). */
function duplicateNames(rawHeaders: readonly string[]): string[] {
  const counts = new Map<string, number>(); // insertion order is first appearance
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n > 1).map(([name]) => name);
}

/** Parses the query string of `path` (SPEC §2 shape). */
export function parseQuery(path: string): Record<string, string | string[]> {
  const q = path.indexOf('?');
  const out = dict<string | string[]>();
  if (q === -1) return out;
  for (const [k, v] of new URLSearchParams(path.slice(q + 1))) addMulti(out, k, v);
  return out;
}

/** The last address given to bareAddress and its answer: a connection's requests all ask the same. */
let lastAddress = '';
let lastBare = '';

/** An address without port or brackets, IPv4-mapped IPv6 shown as IPv4. */
export function bareAddress(addr: string): string {
  if (addr === lastAddress) return lastBare;
  const bare = unbracketed(addr);
  lastAddress = addr;
  lastBare = bare;
  return bare;
}

function unbracketed(addr: string): string {
  let a = addr.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(a)) a = a.slice(0, a.indexOf(':')); // IPv4 with port (some proxies add it)
  return a.toLowerCase().startsWith('::ffff:') && isIPv4(a.slice(7)) ? a.slice(7) : a;
}

/**
 * The client address without port; IPv4-mapped IPv6 addresses shown as IPv4. With `trustProxy`, the
 * first X-Forwarded-For entry, when it is an IP address (`unknown` or garbage falls back to the socket).
 */
export function clientIp(
  req: IncomingMessage,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const fwd = headers['x-forwarded-for'];
    const first = (Array.isArray(fwd) ? fwd[0] : fwd)?.split(',')[0];
    if (first !== undefined) {
      const addr = bareAddress(first);
      if (isIP(addr) !== 0) return addr;
    }
  }
  return bareAddress(req.socket.remoteAddress ?? '');
}

function protocolOf(req: IncomingMessage, trustProxy: boolean): 'http' | 'https' {
  if (trustProxy) {
    const fwd = req.headers['x-forwarded-proto'];
    const p = (Array.isArray(fwd) ? fwd[0] : fwd)?.split(',')[0]?.trim().toLowerCase();
    if (p === 'https' || p === 'http') return p;
  }
  return (req.socket as TLSSocket).encrypted ? 'https' : 'http';
}

/**
 * Builds the one CapturedRequest for `req`, whose body has already been read into `rawBody`; at
 * once, but for a multipart body (which parses asynchronously).
 */
export function captureRequest(
  req: IncomingMessage,
  path: string,
  rawBody: Buffer,
  options: CaptureOptions,
): CapturedRequest | Promise<CapturedRequest> {
  const { headers, duplicates } = collectHeaders(req.rawHeaders);
  const method = (req.method ?? 'GET').toUpperCase();
  const contentType = headers['content-type'];
  const body = parseBody(method, contentType, rawBody);
  const build = (body: ParsedBody): CapturedRequest => {
    const q = path.indexOf('?');
    const warnings =
      duplicates.length === 0
        ? body.warnings
        : [...body.warnings, ...duplicates.map((d) => `Duplicate headers found: ${d}`)];
    const captured: CapturedRequest = {
      id: requestId(),
      receivedAt: Date.now(),
      method,
      protocol: protocolOf(req, options.trustProxy),
      httpVersion: req.httpVersion,
      host: headers['host'] ?? '',
      path,
      pathname: q === -1 ? path : path.slice(0, q),
      // Node's joined headers, as the rate limiter sees them: the first proxy hop wins.
      ip: clientIp(req, req.headers, options.trustProxy),
      headers,
      duplicateHeaders: duplicates,
      rawHeaders: req.rawHeaders,
      query: parseQuery(path),
      contentType,
      rawBody,
      body,
      files: body.files,
      warnings,
    };
    // Added over TLS only (a spread of `{}` in the literal costs V8 a runtime call on every request).
    if ((req.socket as TLSSocket).encrypted)
      (captured as { peerCertificate?: CapturedRequest['peerCertificate'] }).peerCertificate =
        peerCertificateOf(req.socket as TLSSocket);
    return captured;
  };
  return body instanceof Promise ? body.then(build) : build(body);
}

/** Reads the client's certificate off the socket each time: a renegotiation may change it. */
function peerCertificateOf(socket: TLSSocket): () => X509Certificate | undefined {
  return () => socket.getPeerX509Certificate();
}

/** A request that did not come as one IncomingMessage (a gRPC call): its parts, its body already read. */
export interface RequestParts {
  method: string;
  path: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  rawBody: Buffer;
  /** The connection it came on: the client's address, and its certificate over TLS. */
  socket: Socket;
  httpVersion: string;
  trustProxy: boolean;
  /** A gRPC call: the method it names (`pkg.Service/Method`). */
  grpc?: { method: string };
}

/**
 * The CapturedRequest of a request given as parts: the same fields an HTTP request gets, read the same
 * way (the body parsed by its content type, the address behind a trusted proxy, the certificate on TLS).
 */
export function captureParts(p: RequestParts): CapturedRequest {
  const headers = dict<string>();
  const rawHeaders: string[] = [];
  for (const [k, v] of Object.entries(p.headers)) {
    headers[k] = v;
    rawHeaders.push(k, v);
  }
  const contentType = headers['content-type'];
  const body = parseBody(p.method, contentType, p.rawBody);
  if (body instanceof Promise) throw new TypeError('captureParts takes no multipart body');
  const q = p.path.indexOf('?');
  const tls = (p.socket as TLSSocket).encrypted === true;
  const captured: CapturedRequest = {
    id: requestId(),
    receivedAt: Date.now(),
    method: p.method,
    protocol: tls ? 'https' : 'http',
    httpVersion: p.httpVersion,
    host: headers['host'] ?? headers[':authority'] ?? '',
    path: p.path,
    pathname: q === -1 ? p.path : p.path.slice(0, q),
    ip: clientIp({ socket: p.socket } as IncomingMessage, headers, p.trustProxy),
    headers,
    duplicateHeaders: [],
    rawHeaders,
    query: parseQuery(p.path),
    contentType,
    rawBody: p.rawBody,
    body,
    files: body.files,
    warnings: body.warnings,
  };
  if (p.grpc) (captured as { grpc?: CapturedRequest['grpc'] }).grpc = p.grpc;
  if (tls)
    (captured as { peerCertificate?: CapturedRequest['peerCertificate'] }).peerCertificate =
      peerCertificateOf(p.socket as TLSSocket);
  return captured;
}
