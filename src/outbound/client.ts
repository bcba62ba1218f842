/**
 * The one outbound HTTP client (undici), shared by everything that sends a request on a user's
 * behalf: the HTTP proxy and rule callouts. Every connection goes through one connector that
 * resolves the host name itself, checks every address with the AddressPolicy, and connects to the
 * address it checked: a DNS answer that changes between the check and the connection (rebinding)
 * cannot move the connection elsewhere. TLS still verifies the certificate against the host name.
 *
 * Bounds (anyone who reaches an endpoint can make it send a request): one deadline for connecting
 * and receiving the response headers, the same time as the longest pause between body chunks, a cap
 * on the upstream's response headers, a cap on connections per origin; the body is never buffered,
 * the caller streams it. Redirects are never followed: they are answers like any other.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, buildConnector, errors as undiciErrors } from 'undici';
import { AddressPolicy, type Refusal } from './address-policy.js';
import { parseTarget, TargetRefused } from './target.js';

/** Largest block of response headers accepted from an upstream. */
export const UPSTREAM_MAX_HEADER_BYTES = 64 * 1024;
/** Connections kept open to one upstream origin at most; further requests wait for one. */
export const UPSTREAM_CONNECTIONS_PER_ORIGIN = 128;

export interface OutboundOptions {
  /** CIDR ranges allowed even where the built-in list denies them (PROXY_ALLOW). */
  allow?: readonly string[];
  /** CIDR ranges denied besides the built-in list (PROXY_DENY). */
  deny?: readonly string[];
  /** Ms for connecting and receiving the response headers, and the longest pause inside the body. */
  timeout: number;
}

export interface UpstreamRequest {
  /** An http(s) URL without credentials (checked again here). */
  url: string;
  method: string;
  headers: Record<string, string | readonly string[]>;
  body?: Buffer | undefined;
  /** Accept any certificate (the endpoint's `proxy.ignoreSSLErrors`). */
  ignoreTlsErrors?: boolean;
  /** Cancels the request (and the body's stream) from outside, e.g. at shutdown: a `failed` error. */
  signal?: AbortSignal;
}

export interface UpstreamResponse {
  status: number;
  /** Names in lower case; a repeated header (Set-Cookie) is a list. */
  headers: Record<string, string | string[]>;
  /** The body as it arrives; the caller must consume or destroy it. */
  body: Readable;
}

/** Why an outbound request failed, for the caller's answer: refused by policy, timed out, or failed. */
export class OutboundError extends Error {
  override name = 'OutboundError';
  constructor(
    readonly kind: 'refused' | 'timeout' | 'failed',
    message: string,
    readonly refusal?: Refusal,
  ) {
    super(message);
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'ETIMEDOUT']);

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: unknown };
  if (e.code === 'ECONNREFUSED') return 'connection refused';
  if (e.code === 'ECONNRESET' || e.code === 'UND_ERR_SOCKET') return 'the connection was closed';
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (e.code === 'UND_ERR_HEADERS_OVERFLOW')
    return `its response headers are over ${UPSTREAM_MAX_HEADER_BYTES} bytes`;
  if (typeof e.code === 'string' && /CERT|SSL|TLS|SELF_SIGNED|VERIFY/.test(e.code))
    return `TLS failed (${e.code}); the endpoint may set proxy.ignoreSSLErrors`;
  return e.code ?? 'the request failed';
}

export class OutboundClient {
  private readonly policy: AddressPolicy;
  private readonly agents = new Map<boolean, Agent>();

  constructor(private readonly opts: OutboundOptions) {
    this.policy = new AddressPolicy({ allow: opts.allow ?? [], deny: opts.deny ?? [] });
  }

  /** The policy's verdict on one address (undefined: allowed). */
  checkAddress(ip: string): Refusal | undefined {
    return this.policy.check(ip);
  }

  /**
   * The addresses `hostname` resolves to, every one checked: one denied address refuses the name
   * (a name that resolves to a metadata address among others is not one to trust).
   */
  async resolve(hostname: string): Promise<string> {
    const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    const addresses = isIP(bare) !== 0 ? [bare] : (await lookup(bare, { all: true })).map((a) => a.address);
    for (const a of addresses) {
      const refusal = this.policy.check(a);
      if (refusal) throw new TargetRefused(refusalMessage(hostname, refusal), refusal);
    }
    const first = addresses[0];
    if (first === undefined) throw new TargetRefused(`${hostname} has no address`);
    return first;
  }

  private agent(insecure: boolean): Agent {
    let a = this.agents.get(insecure);
    if (!a) {
      const base = buildConnector({ timeout: this.opts.timeout, rejectUnauthorized: !insecure });
      a = new Agent({
        connections: UPSTREAM_CONNECTIONS_PER_ORIGIN,
        maxHeaderSize: UPSTREAM_MAX_HEADER_BYTES,
        headersTimeout: this.opts.timeout,
        bodyTimeout: this.opts.timeout,
        // Resolve and check here, then connect to the checked address; `host` keeps the name for
        // SNI and certificate checks.
        connect: (options, callback) => {
          this.resolve(options.hostname).then(
            (address) => base({ ...options, hostname: address }, callback),
            (err: Error) => callback(err, null),
          );
        },
      });
      this.agents.set(insecure, a);
    }
    return a;
  }

  /**
   * Sends one request and resolves when the response headers have arrived (the body streams after).
   * Rejects with an OutboundError: `refused` (scheme, credentials, address policy), `timeout`, `failed`.
   */
  async request(req: UpstreamRequest): Promise<UpstreamResponse> {
    const abort = new AbortController();
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, this.opts.timeout);
    try {
      // A URL of a form refused (a scheme, credentials) is a `refused` OutboundError like an address.
      const url = parseTarget(req.url);
      // An IP literal is checked before anything is queued (the connector checks names and literals alike).
      const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      if (isIP(literal) !== 0) {
        const refusal = this.policy.check(literal);
        if (refusal) throw new TargetRefused(refusalMessage(url.hostname, refusal), refusal);
      }
      const res = await this.agent(req.ignoreTlsErrors === true).request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers: req.headers as Record<string, string | string[]>,
        body: req.body ?? null,
        signal: req.signal ? AbortSignal.any([abort.signal, req.signal]) : abort.signal,
      });
      return { status: res.statusCode, headers: res.headers as UpstreamResponse['headers'], body: res.body };
    } catch (err) {
      throw classify(err, timedOut, this.opts.timeout);
    } finally {
      clearTimeout(deadline);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close()));
    this.agents.clear();
  }
}

function refusalMessage(host: string, r: Refusal): string {
  const where = host.replace(/^\[|\]$/g, '') === r.address ? r.address : `${host} (${r.address})`;
  return r.range === ''
    ? `${where} is ${r.reason}`
    : `${where} is ${r.reason} (${r.range}); an operator may allow it with PROXY_ALLOW`;
}

function classify(err: unknown, timedOut: boolean, timeout: number): OutboundError {
  if (err instanceof OutboundError) return err;
  if (err instanceof TargetRefused) return new OutboundError('refused', err.message, err.refusal);
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof TargetRefused) return new OutboundError('refused', cause.message, cause.refusal);
  const code = (err as { code?: string }).code ?? '';
  if (timedOut || TIMEOUT_CODES.has(code) || err instanceof undiciErrors.ConnectTimeoutError)
    return new OutboundError('timeout', `no answer within ${timeout} ms`);
  return new OutboundError('failed', describe(err));
}
