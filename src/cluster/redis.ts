/**
 * The connection to REDIS_URL that instances coordinate through (SPEC §8). Redis only coordinates:
 * PostgreSQL holds the truth, so no caller may wait on Redis for long. Commands therefore fail at once
 * while the link is down (no offline queue) and after `commandTimeout` when Redis stops answering
 * (`CLIENT PAUSE`, a stalled network); the caller takes its degraded path (read PostgreSQL, count in
 * memory) and the link keeps reconnecting by itself. `up` says which path a caller is on.
 */
import { Redis, type RedisOptions } from 'ioredis';

export interface RedisLinkOptions {
  /** A command unanswered this long fails (ms). */
  commandTimeout?: number;
  /** The longest wait between two reconnection attempts (ms). */
  maxReconnectDelay?: number;
  /** Told each time the link goes up or down. */
  onChange?: (up: boolean, reason?: string) => void;
}

const DEFAULTS = { commandTimeout: 500, maxReconnectDelay: 2000 };

export class RedisLink {
  /** The connection for ordinary commands. Blocking readers take a `duplicate()` of their own. */
  readonly client: Redis;
  private readonly opts: Required<Omit<RedisLinkOptions, 'onChange'>> & RedisLinkOptions;
  private readonly extra = new Set<Redis>();
  private isUp = false;
  private closed = false;

  constructor(
    readonly url: string,
    opts: RedisLinkOptions = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
    this.client = new Redis(url, this.options());
    this.client.on('ready', () => this.set(true));
    this.client.on('close', () => this.set(false, 'connection closed'));
    this.client.on('error', (err: Error) => this.set(false, err.message));
  }

  private options(): RedisOptions {
    return {
      lazyConnect: false,
      enableOfflineQueue: false,
      // Commands issued in one turn of the event loop (a request's version read and its rate
      // limiter's) share one round trip.
      enableAutoPipelining: true,
      maxRetriesPerRequest: 1,
      commandTimeout: this.opts.commandTimeout,
      connectTimeout: 2000,
      retryStrategy: (attempt) => (this.closed ? null : Math.min(attempt * 100, this.opts.maxReconnectDelay)),
    };
  }

  private set(up: boolean, reason?: string): void {
    if (this.isUp === up) return;
    this.isUp = up;
    this.opts.onChange?.(up, reason);
  }

  /** Whether the command connection is ready now. */
  get up(): boolean {
    return this.isUp;
  }

  /** Resolves once the command connection is ready, or rejects after `timeoutMs`. */
  async ready(timeoutMs = 3000): Promise<void> {
    if (this.isUp) return;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => {
        this.client.off('ready', done);
        reject(new Error(`Redis at ${this.url} not ready after ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(t);
        resolve();
      };
      this.client.once('ready', done);
    });
  }

  /**
   * A connection of its own (a blocking `XREAD`, a subscriber), with the same reconnection and no
   * command timeout unless given. Closed with the link.
   */
  duplicate(commandTimeout?: number): Redis {
    // A blocking command holds its connection: nothing is pipelined behind it.
    const r = new Redis(this.url, { ...this.options(), enableAutoPipelining: false, commandTimeout });
    r.on('error', () => undefined); // reported through the command connection's status
    this.extra.add(r);
    return r;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const r of this.extra) r.disconnect();
    this.extra.clear();
    this.client.disconnect();
    this.set(false, 'closed');
  }
}
