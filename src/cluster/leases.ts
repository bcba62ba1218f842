/**
 * Leases in Redis: a key that names the instance holding something (a tunnel client of an endpoint),
 * written with a time to live and kept alive by its holder. A holder that dies stops renewing and the
 * key expires by itself; a holder that stops cleanly deletes it at once. Every write is conditional on
 * the value being the holder's own (Lua, atomic in Redis), so an instance never renews, takes over or
 * deletes a lease another instance holds: a key that is free (expired, released, lost when Redis
 * restarted empty) is taken by the next holder that renews.
 *
 * Redis only coordinates: a failed command is reported (`onResult`) and retried at the next renewal,
 * never awaited for longer than the link's command timeout.
 */
import type { Redis } from 'ioredis';
import type { RedisLink } from './redis.js';

/** Renews the lease if it is ours, takes it if it is free; 1 when we hold it afterwards, else 0. */
const CLAIM = `
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

/** Deletes the lease only if it is still ours. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

type LeaseClient = Redis & {
  leaseClaim(key: string, value: string, ttlMs: number): Promise<number>;
  leaseRelease(key: string, value: string): Promise<number>;
};

export interface LeaseOptions {
  /** A lease not renewed for this long expires (ms). */
  ttlMs: number;
  /** How often held leases are renewed (ms); well under `ttlMs`. */
  renewMs: number;
  /** Told after every command whether Redis answered; with nothing to renew, each round whether the link is up. */
  onResult?: (ok: boolean, err?: Error) => void;
}

export class Leases {
  private readonly held = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;
  private readonly client: LeaseClient;
  private closed = false;

  constructor(
    private readonly redis: RedisLink,
    private readonly opts: LeaseOptions,
  ) {
    const client = redis.client as LeaseClient;
    if (typeof client.leaseClaim !== 'function') {
      client.defineCommand('leaseClaim', { numberOfKeys: 1, lua: CLAIM });
      client.defineCommand('leaseRelease', { numberOfKeys: 1, lua: RELEASE });
    }
    this.client = client;
    this.timer = setInterval(() => void this.renew(), opts.renewMs);
    this.timer.unref();
  }

  /** Starts holding `key` with `value`: claimed now, renewed until `release`. */
  hold(key: string, value: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.held.set(key, value);
    return this.claim(key, value);
  }

  /** Stops holding `key` and deletes it if it is still ours. */
  async release(key: string): Promise<void> {
    const value = this.held.get(key);
    if (value === undefined) return;
    this.held.delete(key);
    await this.run(() => this.client.leaseRelease(key, value));
  }

  /**
   * Deletes `key` if it still holds `value` (whoever holds it): a lease whose owner cannot be reached.
   * A live owner takes it back at its next renewal.
   */
  async drop(key: string, value: string): Promise<void> {
    await this.run(() => this.client.leaseRelease(key, value));
  }

  /** The value of `key` (whoever holds it); undefined when free or when Redis did not answer. */
  async read(key: string): Promise<string | undefined> {
    let v: string | null = null;
    await this.run(async () => (v = await this.client.get(key)));
    return v ?? undefined;
  }

  /** Whether this instance holds (or keeps trying to hold) `key`. */
  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** Renews (or takes back) every lease held, in one round trip. */
  async renew(): Promise<void> {
    if (this.held.size === 0) {
      this.opts.onResult?.(this.redis.up);
      return;
    }
    // Commands defined on the client exist on its pipelines too (ioredis), untyped.
    const batch = this.client.pipeline() as unknown as Pick<LeaseClient, 'leaseClaim'> & {
      exec(): Promise<[Error | null, unknown][] | null>;
    };
    for (const [key, value] of this.held) void batch.leaseClaim(key, value, this.opts.ttlMs);
    await this.run(async () => {
      const results = (await batch.exec()) ?? [];
      const failed = results.find(([err]) => err !== null);
      if (failed) throw failed[0]!;
    });
  }

  /** Stops renewing and deletes every lease still ours. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all([...this.held.keys()].map((k) => this.release(k)));
  }

  private claim(key: string, value: string): Promise<void> {
    return this.run(() => this.client.leaseClaim(key, value, this.opts.ttlMs));
  }

  private async run(command: () => Promise<unknown>): Promise<void> {
    try {
      await command();
      this.opts.onResult?.(true);
    } catch (err) {
      this.opts.onResult?.(false, err as Error);
    }
  }
}
