/**
 * The TOTP generator seen from a login test: register a secret, read its current code, or a code
 * that stays valid long enough to be typed. The TOTP API is rate-limited per client IP (10 requests
 * a minute by default): a 429 is retried after its `Retry-After`, at most `retries` times, so that a
 * call makes at most `1 + retries` requests and never spins.
 */
import type { RetryOptions, Transport } from './http.js';
import type { TotpCode, TotpSecret } from './types.js';

const BASE = '/2FA/TOTP';

export interface TotpOptions extends RetryOptions {
  /** An instant other than now (the code of that time step). */
  at?: Date | string;
}

export class TotpClient {
  constructor(
    private readonly t: Transport,
    private readonly defaults: Required<RetryOptions>,
  ) {}

  private retry(opts: RetryOptions): Required<RetryOptions> {
    return {
      retries: opts.retries ?? this.defaults.retries,
      maxRetryWaitMs: opts.maxRetryWaitMs ?? this.defaults.maxRetryWaitMs,
    };
  }

  /** Registers a secret (or an `otpauth://` URI) and answers its id and current code. */
  register(secret: TotpSecret, opts: RetryOptions = {}): Promise<TotpCode> {
    return this.t.json('POST', `${BASE}/`, { body: secret, auth: false, ...this.retry(opts) });
  }

  /** Registers the secret in a QR code image (PNG, JPEG, GIF or WebP). */
  registerQr(image: Blob | Uint8Array, opts: RetryOptions = {}): Promise<TotpCode | { data: TotpCode[] }> {
    const form = new FormData();
    form.set('qrcode', image instanceof Blob ? image : new Blob([image]), 'qrcode');
    return this.t.json('POST', `${BASE}/`, { body: form, auth: false, ...this.retry(opts) });
  }

  /** The code of the current time step (or of `at`). */
  code(id: string, opts: TotpOptions = {}): Promise<TotpCode> {
    const at = opts.at === undefined ? undefined : new Date(opts.at).toISOString();
    return this.t.json('GET', `${BASE}/${encodeURIComponent(id)}`, {
      query: { at },
      auth: false,
      ...this.retry(opts),
    });
  }

  /**
   * A code valid for at least `minValidityMs` more (default 5000): the current one, or else the next
   * step's, answered when that step begins. Makes one request (plus retries after a 429).
   */
  async freshCode(id: string, opts: RetryOptions & { minValidityMs?: number } = {}): Promise<string> {
    const minValidity = opts.minValidityMs ?? 5000;
    const now = await this.code(id, opts);
    const endsAt = Date.parse(now.expiresAt);
    if (endsAt - Date.now() >= minValidity) return now.otp;
    const next = await this.code(id, { ...opts, at: new Date(endsAt) });
    // A timer can fire a millisecond before the wall clock reaches its end: the code is answered
    // only once Date.now() has (a login that checks it then would otherwise see the old step).
    for (let left = endsAt - Date.now(); left > 0; left = endsAt - Date.now())
      await new Promise((r) => setTimeout(r, left));
    return next.otp;
  }
}
