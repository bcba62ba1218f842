/**
 * Writes request history in batches, off the response path. An entry waits in memory at most
 * `intervalMs`, less when a batch fills up first or a reader flushes; a failed write is retried, so
 * an answered request is not lost to a passing database hiccup.
 *
 * Memory is bounded in entries and in bytes (SPEC §12): when the database cannot keep up (a flood
 * of large bodies, a disk that fails), the oldest queued entries are dropped, counted and logged,
 * never the process. A write takes at most `batchBytes`, so that one batch is never a copy of the
 * whole queue. After each write, the endpoints it touched are brought within their caps
 * (history-cap.ts) as the entries arrive, not by the hourly retention alone.
 */
import type { FastifyBaseLogger } from 'fastify';
import { EndpointHistoryCap, type HistoryCaps } from './history-cap.js';
import { entryWeight, isValueRefused, type NewHistoryEntry, type Store } from '../store/index.js';

export interface HistoryWriterOptions {
  /** Longest wait before a lone entry is written. */
  intervalMs?: number;
  /** Most entries per write. */
  batchSize?: number;
  /** Most bytes per write (one entry at least). */
  batchBytes?: number;
  /** Most entries held in memory; past it the oldest are dropped (and counted). */
  maxQueued?: number;
  /** Most bytes held in memory; past it the oldest are dropped (and counted). */
  maxQueuedBytes?: number;
  /** Each endpoint's stored history, enforced as entries arrive; none when left out. */
  perEndpoint?: HistoryCaps;
  now?: () => number;
}

/** What the writer has done since it started. */
export interface HistoryWriterStats {
  /** Entries waiting in memory, and their weight. */
  queued: number;
  queuedBytes: number;
  /** Entries committed to the store. */
  written: number;
  /** Entries dropped from a full queue, unwritten. */
  dropped: number;
  /** Stored entries removed to keep endpoints within their caps. */
  trimmed: number;
}

interface Queued {
  seq: number;
  entry: NewHistoryEntry;
  weight: number;
}

/** Seconds between two "queue full" log lines: a flood logs a count, not a line per request. */
const DROP_LOG_MS = 5000;

export class HistoryWriter {
  /** The queue: entries before `head` have left it (their slots cleared, so that they can be freed). */
  private items: (Queued | undefined)[] = [];
  private head = 0;
  private queuedBytes = 0;
  private seq = 0;
  private inFlight: Queued[] = [];
  private pumping: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failedAt = -Infinity;
  private waiters: { upTo: number; resolve: () => void }[] = [];
  private readonly counts = { written: 0, dropped: 0, trimmed: 0 };
  private unloggedDrops = 0;
  private dropLoggedAt = -Infinity;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly batchBytes: number;
  private readonly maxQueued: number;
  private readonly maxQueuedBytes: number;
  private readonly now: () => number;
  private readonly cap: EndpointHistoryCap | undefined;
  private readonly listeners: ((e: NewHistoryEntry[]) => void)[] = [];

  constructor(
    private readonly store: Store,
    private readonly log: FastifyBaseLogger | undefined,
    opts: HistoryWriterOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 50;
    this.batchSize = opts.batchSize ?? 500;
    this.batchBytes = opts.batchBytes ?? 4 * 1024 * 1024;
    this.maxQueued = opts.maxQueued ?? 100_000;
    this.maxQueuedBytes = opts.maxQueuedBytes ?? 64 * 1024 * 1024;
    this.now = opts.now ?? Date.now;
    this.cap = opts.perEndpoint && new EndpointHistoryCap(store, opts.perEndpoint, log, this.now);
  }

  /** Queues an entry; never blocks and never throws. */
  record(entry: NewHistoryEntry): void {
    // Kept with the entry: the row stores it as its `size`, and need not measure it again.
    const weight = (entry.weight = entryWeight(entry));
    this.items.push({ seq: ++this.seq, entry, weight });
    this.queuedBytes += weight;
    this.dropOverflow();
    if (this.batchFull()) this.pump(false);
    else this.timer ??= setTimeout(() => this.pump(false), this.intervalMs);
  }

  /** Called after each successful write with the entries written (for live events). */
  onWritten(listener: (e: NewHistoryEntry[]) => void): void {
    this.listeners.push(listener);
  }

  /** Entries waiting to be written. */
  get pending(): number {
    return this.size;
  }

  stats(): HistoryWriterStats {
    return { queued: this.size, queuedBytes: this.queuedBytes, ...this.counts };
  }

  /**
   * Resolves once every entry queued before the call is written (or dropped), or a write has failed:
   * readers of the history call it to see their own requests. Entries queued meanwhile (a flood)
   * do not hold it up.
   */
  async flush(): Promise<void> {
    if (this.size === 0 && this.inFlight.length === 0) return;
    const done = new Promise<void>((resolve) => this.waiters.push({ upTo: this.seq, resolve }));
    this.pump(true);
    await done;
  }

  /**
   * Writes what is queued, retrying a failing store a few times; returns how many entries could not
   * be written and are lost (0 when all went), and logs them.
   */
  async close(): Promise<number> {
    for (let i = 0; i < 5 && (this.size > 0 || this.inFlight.length > 0); i++) await this.flush();
    await this.pumping;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.logDrops(true);
    const lost = this.size;
    if (lost > 0)
      this.log?.error({ lost }, `history: ${lost} answered requests could not be written and are lost`);
    return lost;
  }

  private get size(): number {
    return this.items.length - this.head;
  }

  /** Starts the write loop unless it runs; a store that just failed is left alone for a second. */
  private pump(force: boolean): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pumping) return;
    if (!force && this.now() - this.failedAt < 1000) {
      this.timer = setTimeout(() => this.pump(false), 1000);
      return;
    }
    this.pumping = this.drain().finally(() => {
      this.pumping = undefined;
      // Entries queued while the loop was ending would otherwise wait for the next request.
      if (this.size > 0) this.timer ??= setTimeout(() => this.pump(false), this.intervalMs);
    });
  }

  private async drain(): Promise<void> {
    while (this.size > 0) {
      const batch = this.take();
      this.inFlight = batch;
      let written = batch;
      let entries = batch.map((q) => q.entry);
      try {
        await this.store.insertHistory(entries);
      } catch (err) {
        // The batch may have been stored before the error: the caps count again.
        this.cap?.forget();
        // A value the database refuses would fail every retry and hold every entry queued behind it:
        // the entries are then tried alone, and one refused alone is dropped and logged. Any other
        // error (a store away, busy or full) has the whole batch tried again later.
        const alone = isValueRefused(err) ? await this.oneByOne(batch, err) : { written: [], left: batch };
        written = alone.written;
        entries = written.map((q) => q.entry);
        if (alone.left.length > 0) {
          this.log?.error({ err }, 'history write failed; will retry');
          this.announce(entries);
          this.retryLater(alone.left);
          return;
        }
      }
      this.announce(entries);
      if (this.cap) this.counts.trimmed += await this.cap.afterWrite(written);
      // A reader that flushed sees the endpoint within its caps.
      this.inFlight = [];
      this.settleWaiters(false);
      if (!this.fullBatchWanted()) break;
    }
  }

  /** Counts entries as written and hands them to the listeners (live events). */
  private announce(entries: NewHistoryEntry[]): void {
    this.counts.written += entries.length;
    if (entries.length > 0) for (const l of this.listeners) l(entries);
  }

  /**
   * Writes the entries of a refused batch one at a time: what went, and what is left to retry (from
   * the first entry that failed otherwise than by a refused value). Those refused are dropped.
   */
  private async oneByOne(batch: Queued[], batchErr: unknown): Promise<{ written: Queued[]; left: Queued[] }> {
    const written: Queued[] = [];
    for (let i = 0; i < batch.length; i++) {
      const q = batch[i]!;
      try {
        await this.store.insertHistory([q.entry]);
        written.push(q);
      } catch (err) {
        if (!isValueRefused(err)) return { written, left: batch.slice(i) };
        this.counts.dropped++;
        this.log?.error(
          { err, batchErr, id: q.entry.entry.id, endpoint: q.entry.entry.endpoint },
          'history: the store refused this entry; it is dropped',
        );
      }
    }
    return { written, left: [] };
  }

  /** Puts `left` back at the head of the queue and tries again in a second. */
  private retryLater(left: Queued[]): void {
    this.cap?.forget();
    this.failedAt = this.now();
    this.inFlight = [];
    this.items = [...left, ...this.items.slice(this.head)];
    this.head = 0;
    this.queuedBytes += left.reduce((n, q) => n + q.weight, 0);
    this.dropOverflow();
    this.settleWaiters(true);
    this.timer ??= setTimeout(() => this.pump(false), 1000);
  }

  /**
   * Whether to write again at once rather than let entries gather: a batch is full, or a flush
   * waits. Each batch's commit rewrites the tail pages of the table and its three indexes, so few
   * large batches cost the worker less a row than many small ones (docs/performance.md, "Measurements
   * behind the code").
   */
  private fullBatchWanted(): boolean {
    return this.waiters.length > 0 || this.batchFull();
  }

  /** Whether what is queued makes a whole batch, by count or by bytes. */
  private batchFull(): boolean {
    return this.size >= this.batchSize || this.queuedBytes >= this.batchBytes;
  }

  /** The oldest entries, up to one batch's count and bytes (one entry at least). */
  private take(): Queued[] {
    let end = this.head;
    let bytes = 0;
    while (end < this.items.length && end - this.head < this.batchSize) {
      const w = this.items[end]!.weight;
      if (end > this.head && bytes + w > this.batchBytes) break;
      bytes += w;
      end++;
    }
    const batch = this.items.slice(this.head, end) as Queued[];
    this.items.fill(undefined, this.head, end);
    this.head = end;
    this.queuedBytes -= bytes;
    this.compact();
    return batch;
  }

  /** Over either bound, the oldest entries go: counted, and logged now and then. */
  private dropOverflow(): void {
    let n = 0;
    while (this.size > 0 && (this.size > this.maxQueued || this.queuedBytes > this.maxQueuedBytes)) {
      this.queuedBytes -= this.items[this.head]!.weight;
      this.items[this.head++] = undefined;
      n++;
    }
    if (n === 0) return;
    this.compact();
    this.counts.dropped += n;
    this.unloggedDrops += n;
    this.logDrops(false);
    this.settleWaiters(false);
  }

  private logDrops(now: boolean): void {
    if (this.unloggedDrops === 0 || (!now && this.now() - this.dropLoggedAt < DROP_LOG_MS)) return;
    this.log?.error(
      { dropped: this.unloggedDrops, droppedTotal: this.counts.dropped },
      'history queue full: the store cannot keep up; oldest unwritten entries dropped',
    );
    this.unloggedDrops = 0;
    this.dropLoggedAt = this.now();
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  /** Wakes the flushes whose entries have all left the queue (or every flush, after a failure). */
  private settleWaiters(all: boolean): void {
    if (this.waiters.length === 0) return;
    const oldest = this.inFlight[0]?.seq ?? this.items[this.head]?.seq ?? Infinity;
    this.waiters = this.waiters.filter((w) => {
      if (!all && w.upTo >= oldest) return true;
      w.resolve();
      return false;
    });
  }
}
