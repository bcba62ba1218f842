/**
 * The event bus of one instance (no REDIS_URL): delivery in publish order, in the same turn. Every
 * delivered event gets an id `<boot>-<n>` (n counts up from 1; boot, the bus's start in ms, tells a
 * restarted server's ids from this one's) and the last `length` of them are kept, so that a dashboard
 * that reconnects with `Last-Event-ID` gets what it missed. What the bus never built cannot be
 * replayed: an event published while nobody listened to its endpoint, or one a publisher skipped
 * because `isListening` said no, makes a resume from before it a reset.
 */
import type { ChangeListener, EndpointChange, EventBus, EventListener, MockEvent, Replay } from './bus.js';
import { EVENT_ID } from './bus.js';

export interface MemoryEventBusOptions {
  /** Delivered events kept for resumption, all endpoints together (EVENT_STREAM_LENGTH). */
  length?: number;
  /** Most events one resumption replays; a dashboard that missed more is reset (EVENT_REPLAY_MAX). */
  replayMax?: number;
  now?: () => number;
}

export class MemoryEventBus implements EventBus {
  private readonly listeners = new Map<string, Set<EventListener>>();
  private readonly changeListeners = new Set<ChangeListener>();
  private readonly boot: string;
  private readonly length: number;
  private readonly replayMax: number;
  /** The last id's number: events 1…seq were delivered. */
  private seq = 0;
  /** The kept events, oldest first from `head` (a ring of `length`). */
  private readonly ring: MockEvent[] = [];
  private head = 0;
  /**
   * Each endpoint that had listeners and lost them: `left`, the seq when its last listener went, and
   * `skip`, the last seq at which one of its events went unbuilt or undelivered since (nobody
   * listened; -1 for none): a resume from an id at or before `skip` is a reset.
   */
  private readonly quiet = new Map<string, { left: number; skip: number }>();

  constructor(opts: MemoryEventBusOptions = {}) {
    this.boot = String((opts.now ?? Date.now)());
    this.length = opts.length ?? 10_000;
    this.replayMax = opts.replayMax ?? 1000;
  }

  publish(e: MockEvent): void {
    const set = this.listeners.get(e.endpoint);
    if (!set) {
      this.skip(e.endpoint);
      return;
    }
    const ev: MockEvent = {
      endpoint: e.endpoint,
      name: e.name,
      data: e.data,
      id: `${this.boot}-${++this.seq}`,
    };
    this.keep(ev);
    for (const l of [...set]) {
      try {
        l(ev);
      } catch {
        /* one broken listener must not stop the others */
      }
    }
  }

  isListening(endpoint: string): boolean {
    if (this.listeners.has(endpoint)) return true;
    this.skip(endpoint);
    return false;
  }

  subscribe(endpoint: string, listener: EventListener): () => void {
    let set = this.listeners.get(endpoint);
    if (!set) this.listeners.set(endpoint, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(endpoint) === set) {
        this.listeners.delete(endpoint);
        // From now on its events may go unbuilt: tracked while a resume from before now could be served.
        const q = this.quiet.get(endpoint);
        if (q) q.left = this.seq;
        else this.quiet.set(endpoint, { left: this.seq, skip: -1 });
        this.pruneQuiet();
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
    if (c.notice) this.publish({ endpoint: c.endpoint, name: c.notice.name, data: c.notice.data });
  }

  subscribeChanges(listener: ChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  replay(endpoint: string, lastId: string): Promise<Replay> {
    return Promise.resolve(this.replayNow(endpoint, lastId));
  }

  private replayNow(endpoint: string, lastId: string): Replay {
    const here = `${this.boot}-${this.seq}`;
    const m = EVENT_ID.exec(lastId);
    if (!m || m[1] !== this.boot) return { reset: true, id: here, reason: 'not an id of this server' };
    const last = Number(m[2]);
    if (last > this.seq) return { reset: true, id: here, reason: 'not an id of this server' };
    const oldest = this.seq - this.ring.length + 1;
    if (last < oldest - 1) return { reset: true, id: here, reason: 'older than the events kept' };
    if ((this.quiet.get(endpoint)?.skip ?? -1) >= last)
      return { reset: true, id: here, reason: 'events were not kept while nobody listened' };
    const events: MockEvent[] = [];
    for (let n = last + 1; n <= this.seq; n++) {
      const e = this.ring[(this.head + (n - oldest)) % this.ring.length]!;
      if (e.endpoint !== endpoint) continue;
      if (events.length === this.replayMax)
        return { reset: true, id: here, reason: `more than ${this.replayMax} events missed` };
      events.push(e);
    }
    return { reset: false, events };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.changeListeners.clear();
    this.ring.length = 0;
    this.quiet.clear();
  }

  /** Notes that an event of `endpoint` goes unbuilt now, if a dashboard of it could resume. */
  private skip(endpoint: string): void {
    const q = this.quiet.get(endpoint);
    if (q) q.skip = this.seq;
  }

  private keep(e: MockEvent): void {
    if (this.length === 0) return;
    if (this.ring.length < this.length) this.ring.push(e);
    else {
      this.ring[this.head] = e;
      this.head = (this.head + 1) % this.length;
    }
  }

  /**
   * Forgets the endpoints nobody listens to whose every id a dashboard could hold is older than the
   * kept events: a resume from one of them is a reset whatever happened since.
   */
  private pruneQuiet(): void {
    if (this.quiet.size <= this.length) return;
    const oldest = this.seq - this.ring.length + 1;
    for (const [ep, q] of this.quiet) {
      if (Math.max(q.left, q.skip) < oldest - 1 && !this.listeners.has(ep)) this.quiet.delete(ep);
    }
  }
}
