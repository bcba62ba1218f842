/**
 * Rate limits counted across instances, exactly (SPEC §8): every hit is one atomic script call in Redis
 * (shared-windows.ts), so a limit of 10 a minute lets exactly 10 requests through over every instance.
 * The decisions are MemoryRateLimiter's: the same fixed windows, remaining count and reset time. While
 * Redis is unreachable each hit is counted in this instance's memory instead, at once.
 */
import { MemoryRateLimiter, type RateDecision, type RateLimiter } from '../http/index.js';
import type { Reservation, SharedWindows } from './shared-windows.js';

/** The decision of a window whose count, this hit included, is `total`. */
export function decisionOf(r: Pick<Reservation, 'total' | 'resetAtMs'>, limit: number): RateDecision {
  return {
    allowed: r.total <= limit,
    limit,
    remaining: Math.max(0, limit - r.total),
    resetAt: Math.ceil(r.resetAtMs / 1000),
  };
}

export class SharedRateLimiter implements RateLimiter {
  private readonly local: MemoryRateLimiter;

  /** `now`: the clock of the in-memory fallback (Redis times the shared windows). */
  constructor(
    private readonly windows: SharedWindows,
    now: () => number = Date.now,
  ) {
    this.local = new MemoryRateLimiter(now);
  }

  hit(key: string, limit: number, windowMs: number): Promise<RateDecision> | RateDecision {
    if (!this.windows.shared) return this.localHit(key, limit, windowMs);
    return this.windows.reserve(key, 1, windowMs).then(
      (r) => decisionOf(r, limit),
      () => this.localHit(key, limit, windowMs),
    );
  }

  /**
   * The current window's decision without counting a hit (a hit at `limit + 1` and beyond is refused),
   * or undefined while the count is not shared: this instance's own refusals are known to its caller.
   */
  async peek(key: string, limit: number, windowMs: number): Promise<RateDecision | undefined> {
    if (!this.windows.shared) return undefined;
    try {
      return decisionOf(await this.windows.reserve(key, 0, windowMs), limit);
    } catch {
      return undefined;
    }
  }

  private localHit(key: string, limit: number, windowMs: number): RateDecision {
    this.windows.countedLocally();
    return this.local.hit(key, limit, windowMs);
  }

  async close(): Promise<void> {
    await this.local.close();
  }
}
