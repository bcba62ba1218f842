/**
 * The one blocking reader of the shared event stream on an instance (redis-event-bus.ts), on a
 * connection of its own: `XREAD BLOCK` from the last id it read, handing each entry on in order. It
 * starts after the stream's last entry, survives outages by itself (reconnects and reads on from its
 * cursor), says when entries it should have read are gone (trimmed past it, or Redis restarted empty),
 * and reports its state and lag as `events` in the dependency status.
 */
import type { Redis } from 'ioredis';
import type { Metrics } from '../metrics/index.js';
import type { DependencyStatus } from './status.js';
import { idMs } from './event-entry.js';
import { PAGE } from './event-replay.js';

export interface StreamReaderOptions {
  key: string;
  /** The stream's length (about): a page this long may mean the trimming overtook the reader. */
  streamLength: number;
  blockMs: number;
  status?: DependencyStatus;
  metrics?: Pick<Metrics, 'eventStreamLag'>;
  /** Every entry, in stream order. */
  onEntry(id: string, fields: string[]): void;
  /** Entries were lost to this reader; `id`: where the stream stands now, when known. */
  onLoss(id: string | undefined, reason: string): void;
  /** The reader failed before it knew where to start. */
  onStartFailed(): void;
}

export class StreamReader {
  /** The last stream id read; undefined until the reader has started. */
  private cursor: string | undefined;
  private down = false;
  private closed = false;
  private lastReadAt = Date.now();
  private behindMs = 0;
  private readonly loop: Promise<void>;
  private markStarted!: () => void;
  /** Resolves once the reader knows where it starts (the stream's last entry when it started). */
  readonly started = new Promise<void>((resolve) => (this.markStarted = resolve));

  /** `redis`: a connection of the reader's own (blocking), closed by `close`. */
  constructor(
    private readonly redis: Redis,
    private readonly opts: StreamReaderOptions,
  ) {
    opts.metrics?.eventStreamLag.set(0);
    this.loop = this.read();
  }

  /** Whether the reader knows where it starts. */
  get isStarted(): boolean {
    return this.cursor !== undefined;
  }

  /** How far the reader is behind the stream (ms, 0 when idle) and since when it last heard from Redis. */
  lag(): { behindMs: number; lastReadAgeMs: number; reading: boolean } {
    return { behindMs: this.behindMs, lastReadAgeMs: Date.now() - this.lastReadAt, reading: !this.down };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.redis.disconnect();
    await this.loop;
  }

  private async read(): Promise<void> {
    const { key, status } = this.opts;
    while (!this.closed) {
      try {
        if (this.redis.status !== 'ready') await this.ready();
        if (this.cursor === undefined) {
          this.cursor = await this.newest();
          this.markStarted();
        } else if (this.down) await this.resume(this.cursor);
        const res = await this.redis.xread(
          'COUNT',
          PAGE,
          'BLOCK',
          this.opts.blockMs,
          'STREAMS',
          key,
          this.cursor,
        );
        this.lastReadAt = Date.now();
        const entries = res?.[0]?.[1] ?? [];
        this.behindMs = entries.length > 0 ? Math.max(0, Date.now() - idMs(entries.at(-1)![0])) : 0;
        this.opts.metrics?.eventStreamLag.set(this.behindMs / 1000);
        this.down = false;
        status?.report('events', 'up', `reader ${this.behindMs} ms behind the stream`);
        // A reader this far behind may have been overtaken by the trimming: entries after the cursor
        // are all there only if the cursor's entry still is (the stream is trimmed from its oldest).
        if (entries.length >= Math.min(PAGE, this.opts.streamLength) && this.cursor !== '0-0') {
          const kept = await this.redis.xrange(key, this.cursor, this.cursor);
          if (kept.length === 0)
            this.opts.onLoss(entries[0]![0], 'events were trimmed before this instance read them');
        }
        for (const [id, fields] of entries) {
          this.cursor = id;
          this.opts.onEntry(id, fields);
        }
      } catch (err) {
        if (this.closed) break;
        if (this.cursor === undefined) this.opts.onStartFailed();
        if (!this.down) {
          this.down = true;
          status?.report(
            'events',
            'degraded',
            `event stream unreadable (${(err as Error).message}): dashboards get this instance's events only`,
          );
        }
        await new Promise((r) => setTimeout(r, 250).unref());
      }
    }
  }

  /** Resolves once the connection is ready, or after a second (the next command then fails fast). */
  private ready(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(t);
        this.redis.off('ready', done);
        resolve();
      };
      const t = setTimeout(done, 1000);
      this.redis.once('ready', done);
    });
  }

  /** The stream's last id, or `0-0` when there is none yet: where a starting reader begins. */
  private async newest(): Promise<string> {
    const last = await this.redis.xrevrange(this.opts.key, '+', '-', 'COUNT', 1);
    this.opts.status?.report('events', 'up');
    return last[0]?.[0] ?? '0-0';
  }

  /**
   * Back after an outage: entries after the cursor are still there unless the stream was trimmed past
   * it or lost (Redis restarted empty).
   */
  private async resume(cursor: string): Promise<void> {
    if (cursor === '0-0') return;
    const [found, newest] = await Promise.all([
      this.redis.xrange(this.opts.key, cursor, cursor),
      this.redis.xrevrange(this.opts.key, '+', '-', 'COUNT', 1),
    ]);
    if (found.length > 0) return;
    const last = newest[0]?.[0];
    this.opts.onLoss(last, 'events were lost while the event stream was unreadable');
    // A stream made again by a Redis whose clock is behind ours: read it from its start.
    if (last === undefined || idMs(last) < idMs(cursor)) this.cursor = '0-0';
  }
}
