/**
 * A rate limit counted across instances without a Redis round trip per request, for the echo's per-IP
 * limit (on by default, on the hottest path): each instance takes leases, blocks of hits reserved
 * atomically in the shared window (shared-windows.ts), and spends them in memory. A lease is topped up
 * in the background when half of it is spent, so a steady client never waits; only the first hit of a
 * key in a window waits for Redis.
 *
 * Invariants: the hits granted over every instance in a window never exceed the limit (a reservation
 * grants only what is left under it). The price is the other way: a key may be refused before its limit
 * by what the other instances hold unspent, at most 1.5 blocks each (`leaseBlock`); with one instance
 * the decisions are exactly MemoryRateLimiter's. Once Redis has said the window is full, the instance
 * refuses the key in memory until the window ends. While Redis is unreachable every hit is counted in
 * this instance's memory, as for SharedRateLimiter.
 */
import { MemoryRateLimiter, type RateDecision, type RateLimiter } from '../http/index.js';
import type { Reservation, SharedWindows } from './shared-windows.js';

/** Hits a lease reserves for a limit: 2% of it, at least 1 (exact for small limits), at most 100. */
export function leaseBlock(limit: number): number {
  return Math.max(1, Math.min(100, Math.floor(limit / 50)));
}

interface Lease {
  /** The window's end, Redis's clock (ms): which window the lease belongs to. */
  resetAtMs: number;
  /** The window's end on this instance's clock (ms). */
  endsAt: number;
  /** Hits reserved and not spent yet. */
  left: number;
  /** The window's count up to this instance's last grant (what Redis counted before it, plus the grant). */
  reserved: number;
  /** Redis granted less than asked: the window is full once `left` is spent. */
  full: boolean;
}

export class LeasedRateLimiter implements RateLimiter {
  private readonly leases = new Map<string, Lease>();
  /** The reservation in flight for a key: one at a time. */
  private readonly pending = new Map<string, Promise<void>>();
  private readonly local: MemoryRateLimiter;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly windows: SharedWindows,
    private readonly now: () => number = Date.now,
  ) {
    this.local = new MemoryRateLimiter(now);
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  hit(key: string, limit: number, windowMs: number): Promise<RateDecision> | RateDecision {
    if (!this.windows.shared) return this.localHit(key, limit, windowMs);
    let lease = this.leases.get(key);
    if (lease !== undefined && this.now() >= lease.endsAt) {
      this.leases.delete(key);
      lease = undefined;
    }
    if (lease !== undefined) {
      if (lease.left > 0) {
        lease.left--;
        if (!lease.full && lease.left * 2 <= leaseBlock(limit) && !this.pending.has(key))
          this.reserve(key, limit, windowMs).catch(() => undefined); // a failure turns `shared` off
        return {
          allowed: true,
          limit,
          remaining: Math.max(0, limit - (lease.reserved - lease.left)),
          resetAt: Math.ceil(lease.resetAtMs / 1000),
        };
      }
      if (lease.full)
        return { allowed: false, limit, remaining: 0, resetAt: Math.ceil(lease.resetAtMs / 1000) };
    }
    const inFlight = this.pending.get(key) ?? this.reserve(key, limit, windowMs);
    return inFlight.then(
      () => this.hit(key, limit, windowMs),
      () => this.localHit(key, limit, windowMs),
    );
  }

  /** Reserves a block of hits for `key` in Redis and adds what it grants to the key's lease. */
  private reserve(key: string, limit: number, windowMs: number): Promise<void> {
    const block = leaseBlock(limit);
    const p = this.windows.reserve(key, block, windowMs).then(
      (r) => {
        this.pending.delete(key);
        this.grant(key, r, block, limit);
      },
      (err: unknown) => {
        this.pending.delete(key);
        throw err;
      },
    );
    this.pending.set(key, p);
    return p;
  }

  private grant(key: string, r: Reservation, block: number, limit: number): void {
    let lease = this.leases.get(key);
    // A reservation that crossed into the next window while another had started it: the older loses.
    if (lease !== undefined && r.resetAtMs < lease.resetAtMs) return;
    if (lease === undefined || r.resetAtMs > lease.resetAtMs) {
      lease = {
        resetAtMs: r.resetAtMs,
        endsAt: r.resetAtMs - (r.redisNow - this.now()),
        left: 0,
        reserved: 0,
        full: false,
      };
      this.leases.set(key, lease);
    }
    const before = r.total - block;
    const granted = Math.min(block, Math.max(0, limit - before));
    lease.left += granted;
    lease.reserved = before + granted;
    if (granted < block) lease.full = true;
  }

  private localHit(key: string, limit: number, windowMs: number): RateDecision {
    this.windows.countedLocally();
    return this.local.hit(key, limit, windowMs);
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, l] of this.leases) if (l.endsAt <= t) this.leases.delete(k);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await this.local.close();
  }
}
