/**
 * The fixed windows of the rate limits shared by every instance (SPEC §8), counted in Redis: one script
 * call per reservation, timed by Redis's clock, so that every instance sees the same window whatever its
 * own clock says. The windows are those of MemoryRateLimiter: aligned on multiples of the window since
 * the epoch (a minute ends at :00, a day at midnight UTC), each one key that expires after its end.
 *
 * Redis only coordinates: while it is unreachable (link down, a command failed or timed out) `shared`
 * is false and the limiters count in their own memory at once; a failed call is the last one that
 * waits, since later hits read `shared` first. A probe pings Redis until it answers, then the count is
 * shared again. Each change is reported as `rate_limits` in the dependency status and the metrics.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Metrics } from '../metrics/index.js';
import type { RedisLink } from './redis.js';
import type { DependencyStatus } from './status.js';

/**
 * KEYS[1]: the limit's key; ARGV: window (ms), hits to add, the time in ms ('' for Redis's own TIME).
 * Returns the window's count after adding, the window's end and the time it used (ms). The window's key
 * is the limit's key with the window's number: a hit at a window's first millisecond never lands in
 * the one before, whatever the expiry's precision.
 */
const HIT_SCRIPT = `
local now = tonumber(ARGV[3])
if now == nil then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local w = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local index = math.floor(now / w)
local key = KEYS[1] .. ':' .. index
local total = redis.call('INCRBY', key, n)
local reset = (index + 1) * w
if total == n then redis.call('PEXPIRE', key, reset - now + 1000) end
return { total, reset, now }
`;

const COMMAND = 'mockingbirdWindowHit';

type ScriptClient = Redis & {
  [COMMAND](key: string, windowMs: number, n: number, now: string): Promise<[number, number, number]>;
};

/** A reservation of `n` hits in the current window of a key. */
export interface Reservation {
  /** The window's count, this reservation included. */
  total: number;
  /** The end of the window (epoch ms, Redis's clock). */
  resetAtMs: number;
  /** Redis's time when it counted (epoch ms), to translate the window's end to this instance's clock. */
  redisNow: number;
}

export interface SharedWindowsOptions {
  status?: DependencyStatus;
  metrics?: Pick<Metrics, 'rateLimitsShared' | 'rateLimitLocalHits'>;
  log?: Pick<FastifyBaseLogger, 'info' | 'warn'>;
  /** Tests only: the windows are timed by this clock instead of Redis's `TIME`. */
  clock?: () => number;
  /** How often Redis is pinged while the count is per instance (ms). */
  probeMs?: number;
  /** The prefix of every key (`mockingbird:rl:`). */
  prefix?: string;
}

export const RATE_LIMITS = 'rate_limits';
const DEGRADED = 'counted per instance: Redis unreachable';

export class SharedWindows {
  private readonly client: ScriptClient;
  private readonly prefix: string;
  private broken = false;
  private reported: boolean | undefined;
  private probe: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly link: RedisLink,
    private readonly opts: SharedWindowsOptions = {},
  ) {
    this.prefix = opts.prefix ?? 'mockingbird:rl:';
    const client = link.client;
    if (!(COMMAND in client)) client.defineCommand(COMMAND, { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.client = client as ScriptClient;
    client.on('ready', this.onLink);
    client.on('close', this.onLink);
    this.onLink();
  }

  private readonly onLink = (): void => this.report();

  /** Whether hits are counted in Redis now; when false, callers count in memory without waiting. */
  get shared(): boolean {
    return this.link.up && !this.broken && !this.closed;
  }

  /** Counts `n` hits in the current window of `key`. Rejects when Redis fails (then `shared` is false). */
  async reserve(key: string, n: number, windowMs: number): Promise<Reservation> {
    const now = this.opts.clock ? String(this.opts.clock()) : '';
    try {
      const [total, resetAtMs, redisNow] = await this.client[COMMAND](this.prefix + key, windowMs, n, now);
      return { total, resetAtMs, redisNow };
    } catch (err) {
      this.fail(err as Error);
      throw err;
    }
  }

  /** Counts a hit taken in memory because the count is not shared now. */
  countedLocally(): void {
    this.opts.metrics?.rateLimitLocalHits.inc();
  }

  private fail(err: Error): void {
    if (this.broken || this.closed) return;
    this.broken = true;
    this.opts.log?.warn({ err: err.message }, 'rate limits counted per instance: Redis unreachable');
    this.report();
    const ping = (): void => {
      if (this.closed) return;
      if (!this.link.up) {
        this.probe = setTimeout(ping, this.opts.probeMs ?? 500);
        this.probe.unref();
        return;
      }
      this.client.ping().then(
        () => {
          if (this.closed) return;
          this.broken = false;
          this.probe = undefined;
          this.opts.log?.info('rate limits counted across instances again');
          this.report();
        },
        () => {
          this.probe = setTimeout(ping, this.opts.probeMs ?? 500);
          this.probe.unref();
        },
      );
    };
    this.probe = setTimeout(ping, this.opts.probeMs ?? 500);
    this.probe.unref();
  }

  /** Tells the status and the metrics whether the count is shared, when that changed. */
  private report(): void {
    const shared = this.shared;
    if (shared === this.reported) return;
    this.reported = shared;
    this.opts.status?.report(RATE_LIMITS, shared ? 'up' : 'degraded', shared ? 'counted in Redis' : DEGRADED);
    this.opts.metrics?.rateLimitsShared.set(shared ? 1 : 0);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.probe);
    this.link.client.off('ready', this.onLink);
    this.link.client.off('close', this.onLink);
  }
}
