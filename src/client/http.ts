/**
 * The client's one way to call the server: global `fetch` (or the one given), the API key as a
 * bearer token, JSON in and out, and one error type carrying the API's error body. A 429 or 503 is
 * retried after its `Retry-After` when the caller allows retries: never more than `1 + retries`
 * requests in all, and never a wait longer than `maxRetryWaitMs` (then the error is thrown at once).
 */
import type { ErrorBody } from './types.js';

/** What `fetch` takes as a body. */
type BodyInit = NonNullable<RequestInit['body']>;

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface RetryOptions {
  /** Further attempts after a 429 or 503; 0 makes exactly one request. */
  retries?: number;
  /** The longest `Retry-After` worth waiting for, in ms; a longer one fails at once. */
  maxRetryWaitMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  fetch?: FetchLike | undefined;
  /** How the client waits before a retry; tests may replace it. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** An answer of the server other than 2xx: its status and, for the API, its error code. */
export class MockingbirdError extends Error {
  override readonly name = 'MockingbirdError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: NonNullable<ErrorBody['error']['details']> = [],
    /** Seconds to wait before trying again, from a 429's or 503's `Retry-After`. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface CallOptions extends RetryOptions {
  query?: Query | undefined;
  /** Sent as JSON unless it is a string, FormData, Blob or bytes (then as is). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Send the API key (true for the management API). */
  auth?: boolean;
  signal?: AbortSignal | undefined;
  /** When (epoch ms) the call must be over: a retry wait that would end later fails at once. */
  deadline?: number | undefined;
  /** Told before each retry wait, with its length in ms and the status that caused it. */
  onRetryWait?: ((ms: number, status: number) => void) | undefined;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `Retry-After` in seconds (a number or an HTTP date), or undefined. */
export function retryAfterSeconds(res: Response, now = Date.now()): number | undefined {
  const v = res.headers.get('retry-after');
  if (v === null) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

function withQuery(url: string, query: Query | undefined): string {
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.set(k, String(v));
  const qs = params.toString();
  return qs === '' ? url : `${url}?${qs}`;
}

function isRaw(body: unknown): body is BodyInit {
  return (
    typeof body === 'string' ||
    body instanceof FormData ||
    body instanceof Blob ||
    body instanceof ArrayBuffer ||
    body instanceof Uint8Array ||
    body instanceof URLSearchParams
  );
}

/** The error of a non-2xx answer: the API's error body when there is one, else the status. */
export async function errorOf(res: Response): Promise<MockingbirdError> {
  const text = await res.text().catch(() => '');
  let parsed: Partial<ErrorBody> | undefined;
  try {
    parsed = JSON.parse(text) as Partial<ErrorBody>;
  } catch {
    parsed = undefined;
  }
  const e = parsed?.error;
  const code = typeof e?.code === 'string' ? e.code : `http_${res.status}`;
  const message = typeof e?.message === 'string' ? e.message : `HTTP ${res.status} ${res.statusText}`.trim();
  return new MockingbirdError(res.status, code, message, e?.details ?? [], retryAfterSeconds(res));
}

export class Transport {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  private readonly fetchFn: FetchLike;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(opts: TransportOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.apiKey = opts.apiKey;
    this.fetchFn = opts.fetch ?? ((input, init) => fetch(input, init));
    this.sleep = opts.sleep ?? sleepFor;
  }

  /** The raw answer of one call (retried on 429/503 as allowed); throws MockingbirdError unless 2xx. */
  async raw(method: string, path: string, opts: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.auth !== false && this.apiKey !== undefined) headers.authorization = `Bearer ${this.apiKey}`;
    let body: BodyInit | undefined;
    if (opts.body !== undefined) {
      if (isRaw(opts.body)) body = opts.body;
      else {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
    }
    const url = withQuery(this.baseUrl + path, opts.query);
    const retries = Math.max(0, opts.retries ?? 0);
    const maxWait = opts.maxRetryWaitMs ?? 60_000;
    for (let attempt = 0; ; attempt++) {
      const res = await this.fetchFn(url, {
        method,
        headers,
        body: body ?? null,
        signal: opts.signal ?? null,
      });
      if (res.ok) return res;
      const err = await errorOf(res);
      const waitMs = (err.retryAfter ?? 1) * 1000;
      const retriable = res.status === 429 || res.status === 503;
      if (!retriable || attempt >= retries || waitMs > maxWait) throw err;
      if (opts.deadline !== undefined && Date.now() + waitMs > opts.deadline) throw err;
      opts.onRetryWait?.(waitMs, res.status);
      await this.sleep(waitMs);
    }
  }

  /** One call whose answer is JSON. */
  async json<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
    const res = await this.raw(method, path, opts);
    return (await res.json()) as T;
  }
}
