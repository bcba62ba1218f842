/**
 * The event bus of several instances (REDIS_URL, SPEC §8): one Redis Stream that every instance
 * appends to (`XADD … MAXLEN ~ length`) and reads with one blocking `XREAD` of its own, on a
 * connection of its own, fanning each entry out to its dashboards. An event's id is its stream id, so
 * a dashboard that reconnects to any instance resumes from it (`replay`). Redis only coordinates:
 *
 * - Publishing never waits for Redis: entries of one turn go out in one pipeline, and an event that
 *   cannot be appended (Redis down, paused, failing) is delivered to this instance's own dashboards
 *   at once, without an id; the next entry this instance appends is a gap, on which every instance
 *   resets its dashboards (they reload what they show from the store).
 * - A change (publishChange) is heard by this instance's change listeners before the call returns,
 *   and by the other instances' when they read it; this instance skips its own change entries.
 * - Only endpoints somebody listens to somewhere get events built (listen-marks.ts).
 * - The reader's state and lag are reported as `events` in the dependency status.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import {
  type ChangeListener,
  type EndpointChange,
  type EventBus,
  type EventListener,
  type MockEvent,
  type Replay,
} from '../events/index.js';
import type { Metrics } from '../metrics/index.js';
import type { RedisLink } from './redis.js';
import type { DependencyStatus } from './status.js';
import {
  changeFields,
  decodeEntry,
  entryEvent,
  eventFields,
  gapFields,
  listenFields,
  type Entry,
} from './event-entry.js';
import { ListenMarks } from './listen-marks.js';
import { replayStream } from './event-replay.js';
import { StreamReader } from './stream-reader.js';

export interface RedisEventBusOptions {
  /** Entries the stream keeps, about (EVENT_STREAM_LENGTH). */
  streamLength: number;
  /** Most events one resumption replays; a dashboard that missed more is reset (EVENT_REPLAY_MAX). */
  replayMax: number;
  /** Prefix of the keys (default `mockingbird:`). */
  prefix?: string;
  status?: DependencyStatus;
  metrics?: Pick<Metrics, 'eventsLocalOnly' | 'eventStreamLag'>;
  log?: Pick<FastifyBaseLogger, 'warn' | 'info'>;
  /** How long one XREAD waits for entries (ms). */
  blockMs?: number;
  /** How long a listen mark outlives its last renewal (ms). */
  markTtlMs?: number;
  /** How often listen marks are renewed and read (ms). */
  markRefreshMs?: number;
}

/** Own entries delivered here already (Redis answered late or not at all), remembered at most. */
const MAX_DELIVERED = 10_000;

interface Pending {
  fields: string[];
  uid: number;
  /** What this instance's dashboards get if the entry cannot be appended. */
  local: MockEvent | undefined;
}

export class RedisEventBus implements EventBus {
  /** This instance, as written in its entries. */
  readonly instance = randomUUID();
  private readonly key: string;
  private readonly local = new Map<string, Set<EventListener>>();
  private readonly changeListeners = new Set<ChangeListener>();
  private readonly marks: ListenMarks;
  private readonly reader: StreamReader;
  /** Resolves once the reader knows where it starts (the stream's last entry when it started). */
  readonly started: Promise<void>;
  private readonly refreshMs: number;
  private queue: Pending[] = [];
  private scheduled = false;
  private uid = 0;
  /** Own entries whose events were delivered here already: skipped when read back. */
  private readonly delivered = new Set<number>();
  /** An event went to this instance's dashboards only since the last gap entry. */
  private lost = false;
  private closed = false;

  constructor(
    private readonly link: RedisLink,
    private readonly opts: RedisEventBusOptions,
  ) {
    const prefix = opts.prefix ?? 'mockingbird:';
    this.key = `${prefix}events`;
    this.refreshMs = opts.markRefreshMs ?? 1000;
    this.marks = new ListenMarks(
      () => link.client,
      { marks: `${prefix}events:marks`, since: `${prefix}events:since` },
      { ttlMs: opts.markTtlMs ?? 30_000, refreshMs: this.refreshMs },
    );
    const blockMs = opts.blockMs ?? 2000;
    // A blocked XREAD answers within blockMs; one unanswered well past that is a stalled Redis.
    this.reader = new StreamReader(link.duplicate(blockMs + 1500), {
      key: this.key,
      streamLength: opts.streamLength,
      blockMs,
      ...(opts.status ? { status: opts.status } : {}),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
      onEntry: (id, fields) => {
        const en = decodeEntry(fields);
        if (en) this.handle(en, id);
      },
      onLoss: (id, reason) => this.resetAll(id, reason),
      onStartFailed: () => {
        const held = this.queue;
        this.queue = [];
        this.localOnly(held);
      },
    });
    this.started = this.reader.started.then(() => {
      if (this.queue.length > 0) this.schedule();
    });
    link.client.on('ready', () => {
      if (this.lost) this.schedule();
    });
  }

  publish(e: MockEvent): void {
    if (this.closed) return;
    const uid = ++this.uid;
    this.enqueue({ fields: eventFields(this.instance, uid, e), uid, local: e });
  }

  isListening(endpoint: string): boolean {
    return this.local.has(endpoint) || this.marks.has(endpoint);
  }

  subscribe(endpoint: string, listener: EventListener): () => void {
    let set = this.local.get(endpoint);
    if (!set) {
      this.local.set(endpoint, (set = new Set()));
      this.marks.watch(endpoint);
      if (!this.closed)
        this.enqueue({ fields: listenFields(this.instance, endpoint), uid: 0, local: undefined });
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.local.get(endpoint) === set) {
        this.local.delete(endpoint);
        this.marks.unwatch(endpoint);
      }
    };
  }

  publishChange(c: EndpointChange): void {
    for (const l of [...this.changeListeners]) {
      try {
        l(c);
      } catch {
        /* one broken listener must not stop the others */
      }
    }
    if (this.closed) return;
    const uid = ++this.uid;
    const local = c.notice && { endpoint: c.endpoint, name: c.notice.name, data: c.notice.data };
    this.enqueue({ fields: changeFields(this.instance, uid, c), uid, local });
  }

  subscribeChanges(listener: ChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** How far the reader is behind the stream (ms, 0 when idle) and since when it last heard from Redis. */
  lag(): { behindMs: number; lastReadAgeMs: number; reading: boolean } {
    return this.reader.lag();
  }

  replay(endpoint: string, lastId: string): Promise<Replay> {
    return replayStream(this.link.client, this.key, endpoint, lastId, {
      replayMax: this.opts.replayMax,
      markSince: (ep) => this.marks.since(ep),
      // Instances hear of a new mark within a beat of the marks.
      settleMs: 2 * this.refreshMs,
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retry);
    this.flush();
    await this.marks.close();
    await this.reader.close();
    this.local.clear();
    this.changeListeners.clear();
  }

  // ---- publishing ----

  private enqueue(p: Pending): void {
    if (!this.link.up) {
      this.localOnly([p]);
      return;
    }
    this.queue.push(p);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    process.nextTick(() => this.flush());
  }

  /** Appends what this turn published in one pipeline, a gap first if events went unshared since the last. */
  private flush(): void {
    this.scheduled = false;
    const items = this.queue;
    this.queue = [];
    const gap = this.lost;
    if (items.length === 0 && !gap) return;
    if (!this.link.up) {
      this.localOnly(items);
      return;
    }
    if (!this.reader.isStarted && !this.closed) {
      // The reader starts after the stream's last entry: held until it knows where that is, so that
      // this instance reads its own first entries too.
      this.queue = items.concat(this.queue);
      return;
    }
    this.lost = false;
    const max = String(this.opts.streamLength);
    const p = this.link.client.pipeline();
    if (gap) p.xadd(this.key, 'MAXLEN', '~', max, '*', ...gapFields(this.instance));
    for (const it of items) p.xadd(this.key, 'MAXLEN', '~', max, '*', ...it.fields);
    p.exec().then(
      (res) => {
        const off = gap ? 1 : 0;
        if (gap && (!res || res[0]?.[0])) this.lost = true;
        const failed = items.filter((_, i) => !res || res[i + off]?.[0]);
        if (failed.length > 0) this.localOnly(failed);
        else if (!this.lost) this.sharedAgain();
      },
      () => {
        if (gap) this.lost = true;
        this.localOnly(items);
      },
    );
  }

  private outage = false;
  private retry: NodeJS.Timeout | undefined;

  /** Delivers what could not be appended to this instance's dashboards, without ids; the gap goes out once Redis answers. */
  private localOnly(items: Pending[]): void {
    for (const it of items) {
      if (!it.local) continue;
      this.lost = true;
      this.opts.metrics?.eventsLocalOnly.inc();
      this.delivered.add(it.uid);
      if (this.delivered.size > MAX_DELIVERED) this.delivered.delete(this.delivered.values().next().value!);
      this.deliver(it.local);
    }
    if (this.lost && !this.retry && !this.closed) {
      // Once Redis answers again the gap is appended, even if nothing else is published.
      this.retry = setTimeout(() => {
        this.retry = undefined;
        if (this.lost) this.schedule();
      }, 1000);
      this.retry.unref();
    }
    if (this.lost && !this.outage) {
      this.outage = true;
      this.opts.log?.warn(
        {},
        "live events cannot be shared through Redis: this instance's dashboards get its own events only",
      );
    }
  }

  private sharedAgain(): void {
    if (!this.outage) return;
    this.outage = false;
    this.opts.log?.info('live events are shared through Redis again');
  }

  // ---- reading ----

  private handle(en: Entry, id: string): void {
    switch (en.kind) {
      case 'listen':
        if (en.origin !== this.instance) this.marks.heard(en.endpoint);
        return;
      case 'gap':
        this.resetAll(id, 'events were lost while Redis was unreachable');
        return;
      case 'change':
        if (en.origin !== this.instance) {
          const c: EndpointChange = { endpoint: en.endpoint, what: en.what };
          for (const l of [...this.changeListeners]) {
            try {
              l(c);
            } catch {
              /* one broken listener must not stop the others */
            }
          }
        }
        break;
      case 'event':
        break;
    }
    if (en.origin === this.instance && this.delivered.delete(en.uid)) return;
    if (!this.local.has(en.endpoint)) return;
    const e = entryEvent(en, id);
    if (e) this.deliver(e);
  }

  private deliver(e: MockEvent): void {
    const set = this.local.get(e.endpoint);
    if (!set) return;
    for (const l of [...set]) {
      try {
        l(e);
      } catch {
        /* one broken listener must not stop the others */
      }
    }
  }

  /** Tells every dashboard of this instance to reload what it shows. */
  private resetAll(id: string | undefined, reason: string): void {
    for (const endpoint of [...this.local.keys()]) {
      const e: MockEvent = { endpoint, name: 'reset', data: { reason } };
      if (id !== undefined) e.id = id;
      this.deliver(e);
    }
  }
}
