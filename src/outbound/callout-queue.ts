/**
 * The background queue of async rule callouts (SPEC §4, §12). Anyone who reaches an endpoint can make
 * it send a request later, so the queue is bounded: CALLOUT_CONCURRENCY callouts are sent at once,
 * CALLOUT_QUEUE wait on the whole server (for their delay, then for a turn) and
 * CALLOUT_QUEUE_PER_ENDPOINT for one endpoint; one more is not scheduled, and the caller records why.
 * The delay itself is bounded by the rule schema (at most MAX_DELAY_MS).
 *
 * Shutdown (`close`): callouts still waiting are cancelled at once (their `cancel` records it); those
 * being sent are given until the deadline to finish, then aborted (their `run` records that).
 */
import type { FastifyBaseLogger } from 'fastify';
import { newInstanceId } from './hop.js';

export interface CalloutJob {
  /** The endpoint whose rule made it (the per-endpoint bound). */
  endpoint: string;
  /** Ms to wait before it is sent. */
  delayMs: number;
  /** Sends it and records the outcome; must not reject (a rejection is logged). */
  run(signal: AbortSignal): Promise<void>;
  /** Records that it was never sent (shutdown); must not reject. */
  cancel(reason: string): Promise<void>;
}

export interface CalloutQueueOptions {
  concurrency: number;
  maxQueued: number;
  maxPerEndpoint: number;
  log?: FastifyBaseLogger;
}

interface Waiting {
  job: CalloutJob;
  timer: NodeJS.Timeout | undefined;
}

export class CalloutQueue {
  /** This instance's id in the `X-Mockingbird-Hop` header of its callouts (the depth limit). */
  readonly instanceId = newInstanceId();
  private readonly waiting = new Set<Waiting>();
  /** Waiting ones whose delay has passed, in order, until a turn is free. */
  private ready: Waiting[] = [];
  private readonly perEndpoint = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private closed = false;

  constructor(private readonly opts: CalloutQueueOptions) {}

  /** Schedules `job`; undefined when scheduled, else why it was not (the bound it met). */
  schedule(job: CalloutJob): string | undefined {
    if (this.closed) return 'the server is shutting down';
    if (this.waiting.size >= this.opts.maxQueued)
      return `not sent: ${this.opts.maxQueued} async callouts are already waiting on this server (CALLOUT_QUEUE)`;
    const n = this.perEndpoint.get(job.endpoint) ?? 0;
    if (n >= this.opts.maxPerEndpoint)
      return `not sent: ${this.opts.maxPerEndpoint} async callouts of this endpoint are already waiting (CALLOUT_QUEUE_PER_ENDPOINT)`;
    const w: Waiting = { job, timer: undefined };
    this.waiting.add(w);
    this.perEndpoint.set(job.endpoint, n + 1);
    w.timer = setTimeout(() => {
      w.timer = undefined;
      this.ready.push(w);
      this.pump();
    }, job.delayMs);
    // A waiting callout does not keep the process alive by itself; close() settles it.
    w.timer.unref();
    return undefined;
  }

  /** Callouts waiting (for their delay or a turn) and being sent. */
  stats(): { waiting: number; running: number } {
    return { waiting: this.waiting.size, running: this.running.size };
  }

  private leave(w: Waiting): void {
    this.waiting.delete(w);
    const n = (this.perEndpoint.get(w.job.endpoint) ?? 1) - 1;
    if (n <= 0) this.perEndpoint.delete(w.job.endpoint);
    else this.perEndpoint.set(w.job.endpoint, n);
  }

  private pump(): void {
    while (this.running.size < this.opts.concurrency && this.ready.length > 0) {
      const w = this.ready.shift()!;
      this.leave(w);
      const p: Promise<void> = w.job
        .run(this.abort.signal)
        .catch((err: unknown) => this.opts.log?.error({ err }, 'callout failed unexpectedly'))
        .finally(() => {
          this.running.delete(p);
          this.pump();
        });
      this.running.add(p);
    }
  }

  /**
   * Cancels the waiting callouts, gives those being sent until `graceMs` and then aborts them;
   * resolves once every one has recorded its outcome. Returns how many were cancelled and aborted.
   */
  async close(graceMs: number): Promise<{ cancelled: number; aborted: number }> {
    this.closed = true;
    const cancelled = [...this.waiting];
    for (const w of cancelled) {
      if (w.timer) clearTimeout(w.timer);
      this.leave(w);
    }
    this.ready = [];
    await Promise.all(
      cancelled.map((w) =>
        w.job
          .cancel('cancelled: the server shut down before the callout was sent')
          .catch((err: unknown) => this.opts.log?.error({ err }, 'callout cancel failed')),
      ),
    );
    let aborted = 0;
    if (this.running.size > 0) {
      const deadline = setTimeout(() => {
        aborted = this.running.size;
        this.abort.abort();
      }, graceMs);
      while (this.running.size > 0) await Promise.all([...this.running]);
      clearTimeout(deadline);
    }
    return { cancelled: cancelled.length, aborted };
  }
}
