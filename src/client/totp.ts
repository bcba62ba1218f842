/**
 * The TOTP generator seen from a login test: register a secret, read its current code, or a code
 * that stays valid long enough to be typed. The TOTP API is rate-limited per client IP (10 requests
 * a minute by default): a 429 is retried after its `Retry-After`, at most `retries` times, so that a
 * call makes at most `1 + retries` requests and never spins. No call waits past its budget
 * (`budgetMs`, 4 s by default, under the 5 s a test runner gives a test): a wait that would end later
 * fails at once with the 429, and each wait on the rate limit is said (`onRateLimitWait`).
 */
import type { RetryOptions, Transport } from './http.js';
import type { TotpCode, TotpSecret } from './types.js';

const BASE = '/2FA/TOTP';

/** How long a TOTP call may take in all, waits included, unless told otherwise. */
export const TOTP_BUDGET_MS = 4000;

export interface TotpBudget {
  /** The longest a call may take, retry waits and freshCode's wait for the next step included (4000). */
  budgetMs?: number;
  /** Told when a call waits on the rate limit (default: one console.warn line). */
  onRateLimitWait?: (ms: number) => void;
}

export interface TotpOptions extends RetryOptions, TotpBudget {
  /** An instant other than now (the code of that time step). */
  at?: Date | string;
}

const warnWait = (ms: number): void =>
  console.warn(`mockingbird client: the TOTP API is rate limited (429); waiting ${ms / 1000} s as it asks`);

export class TotpClient {
  constructor(
    private readonly t: Transport,
    private readonly defaults: Required<RetryOptions> & TotpBudget,
  ) {}

  private budgetOf(opts: TotpBudget): number {
    return opts.budgetMs ?? this.defaults.budgetMs ?? TOTP_BUDGET_MS;
  }

  /** The retry options of one call, its deadline `deadline` (epoch ms) or its budget from now. */
  private retry(opts: RetryOptions & TotpBudget, deadline = Date.now() + this.budgetOf(opts)) {
    const said = opts.onRateLimitWait ?? this.defaults.onRateLimitWait ?? warnWait;
    return {
      retries: opts.retries ?? this.defaults.retries,
      maxRetryWaitMs: opts.maxRetryWaitMs ?? this.defaults.maxRetryWaitMs,
      deadline,
      onRetryWait: (ms: number) => said(ms),
    };
  }

  /** Registers a secret (or an `otpauth://` URI) and answers its id and current code. */
  register(secret: TotpSecret, opts: RetryOptions & TotpBudget = {}): Promise<TotpCode> {
    return this.t.json('POST', `${BASE}/`, { body: secret, auth: false, ...this.retry(opts) });
  }

  /** Registers the secret in a QR code image (PNG, JPEG, GIF or WebP). */
  registerQr(
    image: Blob | Uint8Array,
    opts: RetryOptions & TotpBudget = {},
  ): Promise<TotpCode | { data: TotpCode[] }> {
    const form = new FormData();
    form.set('qrcode', image instanceof Blob ? image : new Blob([image]), 'qrcode');
    return this.t.json('POST', `${BASE}/`, { body: form, auth: false, ...this.retry(opts) });
  }

  /** The code of the current time step (or of `at`). */
  code(id: string, opts: TotpOptions = {}): Promise<TotpCode> {
    return this.codeBy(id, opts, Date.now() + this.budgetOf(opts));
  }

  private codeBy(id: string, opts: TotpOptions, deadline: number): Promise<TotpCode> {
    const at = opts.at === undefined ? undefined : new Date(opts.at).toISOString();
    return this.t.json('GET', `${BASE}/${encodeURIComponent(id)}`, {
      query: { at },
      auth: false,
      ...this.retry(opts, deadline),
    });
  }

  /**
   * A code valid for at least `minValidityMs` more (default 3000): the current one, or else the next
   * step's, answered when that step begins. Makes one or two requests (plus retries after a 429), all
   * within the budget: a wait for the next step that would pass it is an Error saying so, at once.
   */
  async freshCode(
    id: string,
    opts: RetryOptions & TotpBudget & { minValidityMs?: number } = {},
  ): Promise<string> {
    const minValidity = opts.minValidityMs ?? 3000;
    const budget = this.budgetOf(opts);
    const deadline = Date.now() + budget;
    const now = await this.codeBy(id, opts, deadline);
    const endsAt = Date.parse(now.expiresAt);
    if (endsAt - Date.now() >= minValidity) return now.otp;
    if (endsAt > deadline)
      throw new Error(
        `freshCode: the current code is valid for ${endsAt - Date.now()} ms more, less than minValidityMs ` +
          `(${minValidity}), and waiting for the next one would pass the budget of ${budget} ms: ` +
          `give a larger budgetMs (and the test a longer timeout) or a smaller minValidityMs`,
      );
    const next = await this.codeBy(id, { ...opts, at: new Date(endsAt) }, deadline);
    // A timer can fire a millisecond before the wall clock reaches its end: the code is answered
    // only once Date.now() has (a login that checks it then would otherwise see the old step).
    for (let left = endsAt - Date.now(); left > 0; left = endsAt - Date.now())
      await new Promise((r) => setTimeout(r, left));
    return next.otp;
  }
}
