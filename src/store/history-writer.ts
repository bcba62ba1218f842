/**
 * Writes request history in batches, off the response path. Entries wait in memory at most
 * `intervalMs` (or until `batchSize` are queued); a failed write is retried, so an answered request
 * is not lost to a passing database hiccup. `close()` flushes everything that is queued.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { NewHistoryEntry, Store } from './types.js';

export interface HistoryWriterOptions {
  intervalMs?: number;
  batchSize?: number;
  /** Most entries held while the database is failing; past it the oldest are dropped (and logged). */
  maxQueued?: number;
}

export class HistoryWriter {
  private queue: NewHistoryEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly maxQueued: number;
  private readonly listeners: ((e: NewHistoryEntry[]) => void)[] = [];

  constructor(
    private readonly store: Store,
    private readonly log: FastifyBaseLogger | undefined,
    opts: HistoryWriterOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 50;
    this.batchSize = opts.batchSize ?? 500;
    this.maxQueued = opts.maxQueued ?? 100_000;
  }

  /** Queues an entry; never blocks and never throws. */
  record(entry: NewHistoryEntry): void {
    this.queue.push(entry);
    if (this.queue.length > this.maxQueued) {
      const dropped = this.queue.splice(0, this.queue.length - this.maxQueued);
      this.log?.error({ dropped: dropped.length }, 'history queue full; oldest entries dropped');
    }
    if (this.queue.length >= this.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.intervalMs);
  }

  /** Called after each successful write with the entries written (for live events). */
  onWritten(listener: (e: NewHistoryEntry[]) => void): void {
    this.listeners.push(listener);
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Writes everything queued so far. Concurrent calls share one write. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.flushing = this.store
      .insertHistory(batch)
      .then(() => {
        for (const l of this.listeners) l(batch);
      })
      .catch((err: unknown) => {
        this.log?.error({ err }, 'history write failed; will retry');
        this.queue = batch.concat(this.queue);
        this.timer ??= setTimeout(() => void this.flush(), 1000);
      })
      .finally(() => {
        this.flushing = undefined;
      });
    await this.flushing;
  }

  /** Flushes until nothing is queued (bounded retries), then stops the timer. */
  async close(): Promise<void> {
    for (let i = 0; i < 5 && (this.queue.length > 0 || this.flushing); i++) await this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
