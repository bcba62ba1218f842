/**
 * "Somebody listens to this endpoint somewhere": one mark per endpoint in Redis, so that an endpoint
 * no dashboard watches costs no event on any instance (a `request.created` is one summary built, one
 * XADD and one entry read by every instance, for every request). A mark lives in a sorted set (score:
 * when it expires, by Redis's clock), renewed every `refreshMs` by each instance holding event streams
 * of the endpoint, and lasts `ttlMs` after the last one closed: a dashboard reconnecting within it finds
 * every event it missed in the stream. Beside it, when the mark was made (a hash): events published
 * before an instance heard of a mark may have been skipped, so a resume from an id older than that,
 * plus the time an instance takes to hear of a mark, is a reset. Each instance reads the live marks
 * into memory on the same beat; a new mark is also announced on the stream (an `l` entry), which the
 * other instances hear within their reader's lag.
 */
import type { Redis } from 'ioredis';

/** Drops expired marks, renews ARGV[2…], returns the live ones. ARGV[1]: ttl (ms). */
const REFRESH = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 1, #gone do redis.call('HDEL', KEYS[2], gone[i]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local ttl = tonumber(ARGV[1])
for i = 2, #ARGV do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then redis.call('HSET', KEYS[2], ARGV[i], now) end
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])
end
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
`;

export interface ListenMarksOptions {
  /** A mark outlives its last renewal by this long (ms). */
  ttlMs: number;
  /** How often marks are renewed and read (ms). */
  refreshMs: number;
}

export class ListenMarks {
  /** Endpoints someone listens to, as last read (this instance's own included). */
  private live = new Set<string>();
  /** Endpoints this instance holds event streams of: renewed on every beat. */
  private readonly own = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly redis: () => Redis,
    private readonly keys: { marks: string; since: string },
    private readonly opts: ListenMarksOptions,
  ) {
    this.timer = setInterval(() => this.refresh(), opts.refreshMs);
    this.timer.unref();
    this.refresh();
  }

  /** Whether someone listens to `endpoint` somewhere, as far as this instance knows. */
  has(endpoint: string): boolean {
    return this.live.has(endpoint);
  }

  /** This instance holds streams of `endpoint` now: its mark is made or renewed at once. */
  watch(endpoint: string): void {
    this.own.add(endpoint);
    this.live.add(endpoint);
    this.refresh();
  }

  /** This instance holds no stream of `endpoint` any more: its mark lapses after `ttlMs`. */
  unwatch(endpoint: string): void {
    this.own.delete(endpoint);
  }

  /** Another instance announced a new mark on the stream. */
  heard(endpoint: string): void {
    this.live.add(endpoint);
  }

  /** When the mark of `endpoint` was made (Redis ms), undefined without one; rejects when Redis does not answer. */
  async since(endpoint: string): Promise<number | undefined> {
    const v = await this.redis().hget(this.keys.since, endpoint);
    return v === null ? undefined : Number(v);
  }

  /** Renews this instance's marks and reads the live ones; one beat at a time, another after if asked meanwhile. */
  private refresh(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.beat().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    });
  }

  private async beat(): Promise<void> {
    try {
      const live = (await this.redis().eval(
        REFRESH,
        2,
        this.keys.marks,
        this.keys.since,
        String(this.opts.ttlMs),
        ...this.own,
      )) as string[];
      this.live = new Set(live);
      for (const ep of this.own) this.live.add(ep);
    } catch {
      // Redis unreachable: events are this instance's own until it is back (redis-event-bus.ts).
      this.live = new Set(this.own);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
  }
}
