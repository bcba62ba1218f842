/**
 * Fixed-window rate limiting per key (client IP, endpoint …). The in-memory limiter serves one
 * instance; a shared implementation (Redis) has the same interface.
 */

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds at which the window resets. */
  resetAt: number;
}

export interface RateLimiter {
  hit(key: string, limit: number, windowMs: number): Promise<RateDecision> | RateDecision;
  /**
   * The key's current window without counting a hit (refused once more than `limit` hits were
   * counted), or undefined when unknown. A shared limiter has it, so that one instance learns of what
   * the others counted; an in-memory one leaves it out (its caller saw every hit).
   */
  peek?(key: string, limit: number, windowMs: number): Promise<RateDecision | undefined>;
  close?(): Promise<void>;
}

/** In-process fixed windows. Old windows are swept once a minute. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  hit(key: string, limit: number, windowMs: number): RateDecision {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= t) {
      w = { count: 0, resetAt: (Math.floor(t / windowMs) + 1) * windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return {
      allowed: w.count <= limit,
      limit,
      remaining: Math.max(0, limit - w.count),
      resetAt: Math.ceil(w.resetAt / 1000),
    };
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, w] of this.windows) if (w.resetAt <= t) this.windows.delete(k);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

/** The X-RateLimit-* headers for a decision, plus Retry-After when refused. */
export function rateLimitHeaders(d: RateDecision, now: number = Date.now()): Record<string, string> {
  const h: Record<string, string> = {
    'x-ratelimit-limit': String(d.limit),
    'x-ratelimit-remaining': String(d.remaining),
    'x-ratelimit-reset': String(d.resetAt),
  };
  if (!d.allowed) h['retry-after'] = String(Math.max(1, d.resetAt - Math.floor(now / 1000)));
  return h;
}
