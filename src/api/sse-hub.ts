/**
 * What all event streams of the instance hold (issue 30, item 4). Each stream bounds its own reader
 * (sse.ts), but a thousand readers that never read still held 0.9-2.0 GB: every stream serialised
 * every event itself, and the per-stream bound alone allows SSE_MAX_STREAMS × 2 × SSE_MAX_BUFFERED.
 * Here an event is serialised once (sse-frame.ts), into one Buffer every stream writes (Node queues a Buffer by
 * reference: N streams behind on one event hold one copy of it, not N), and the bytes queued for all
 * streams, counted as each response's writableLength (what Node and its socket hold for the reader,
 * a shared event counted once per stream), are kept within SSE_MAX_BUFFERED_TOTAL: once per tick in
 * which streams are written, the total is measured and, past the bound, the streams furthest behind
 * are reset until it fits.
 */
import type { ServerResponse } from 'node:http';
import { SseBatcher } from './sse-batch.js';

/** One open stream, as the hub sees it. */
export interface HubStream {
  readonly res: ServerResponse;
  /** Resets the stream's connection (it frees what is queued for it at once). */
  cut(): void;
}

export class SseHub {
  /** Events on their way to the streams, one write per stream per turn (sse-batch.ts). */
  readonly batches = new SseBatcher();
  private readonly streams = new Set<HubStream>();
  private measuredThisTick = false;
  private peakBytes = 0;
  private resets = 0;

  constructor(private readonly maxTotal: number) {}

  add(s: HubStream): void {
    this.streams.add(s);
  }

  remove(s: HubStream): void {
    this.streams.delete(s);
  }

  /** Bytes queued for all open streams now. */
  buffered(): number {
    let n = 0;
    for (const s of this.streams) n += s.res.writableLength;
    return n;
  }

  /** Open streams, bytes queued for them now, the most measured at a tick's start, streams reset by the hub. */
  stats(): { streams: number; buffered: number; peak: number; resets: number } {
    return {
      streams: this.streams.size,
      buffered: this.buffered(),
      peak: this.peakBytes,
      resets: this.resets,
    };
  }

  /**
   * Called before every write to a stream: the first call of a tick measures what earlier ticks left
   * queued (Node hands a tick's writes to the kernel when the tick ends) and resets the streams
   * furthest behind while the total passes the bound.
   */
  beforeWrite(): void {
    if (this.measuredThisTick) return;
    this.measuredThisTick = true;
    process.nextTick(() => (this.measuredThisTick = false));
    let total = this.buffered();
    if (total > this.peakBytes) this.peakBytes = total;
    if (total <= this.maxTotal) return;
    const behind = [...this.streams]
      .map((s) => ({ s, queued: s.res.writableLength }))
      .sort((a, b) => b.queued - a.queued);
    for (const { s, queued } of behind) {
      if (total <= this.maxTotal || queued === 0) break;
      total -= queued;
      this.resets++;
      s.cut();
    }
  }
}
