/**
 * Events to event streams, one write per stream per turn of the event loop. The history writer
 * publishes up to 500 request.created at once; written event by event, 500 streams of the endpoint
 * were 250,000 writes in one synchronous loop, seconds during which no other request was answered.
 * Here the events an endpoint's streams receive within one turn are gathered, serialised once
 * (eventFrame) and joined once, and each stream gets that one Buffer (or the part of it from the
 * first event it received, a view, not a copy) in a single write on the next turn. Handing a batch to
 * hundreds of sockets still costs the kernel's copy of it into each one (a 2 MB batch to 500 readers
 * was 1 GB of copying, 0.45 s at once): streams are written in slices of at most SLICE_MS, the rest on
 * a later turn, batches in the order they were made, so that other requests are answered in between.
 */
import type { MockEvent } from '../events/index.js';
import { eventFrame } from './sse-frame.js';

/** What a batch is written to: an event stream (sse.ts), as far as the batcher uses one. */
export interface FrameSink {
  /** Writes an event already serialised; false once the stream is closed. */
  sendFrame(frame: Buffer): boolean;
}

/** Longest the event loop writes batches to streams before it lets other work run. */
export const SLICE_MS = 10;

interface Batch {
  frames: Buffer[];
  /** Bytes of `frames` so far. */
  bytes: number;
  /** The event last added: the bus hands one event to every listener before the next one. */
  last: MockEvent | undefined;
  /** Each stream with an event in this batch, and where in the batch its first one starts. */
  streams: Map<FrameSink, number>;
}

/** A batch being written: its one Buffer, and the streams still to be written. */
interface Flush {
  all: Buffer;
  todo: [FrameSink, number][];
  next: number;
}

export class SseBatcher {
  private readonly batches = new Map<string, Batch>();
  private readonly flushing: Flush[] = [];
  private running = false;

  /** `e` for `stream` (a bus listener's call): written with the rest of its endpoint's batch. */
  deliver(stream: FrameSink, e: MockEvent): void {
    let b = this.batches.get(e.endpoint);
    if (!b) {
      const fresh: Batch = { frames: [], bytes: 0, last: undefined, streams: new Map() };
      this.batches.set(e.endpoint, (b = fresh));
      setImmediate(() => this.close(e.endpoint, fresh));
    }
    if (b.last !== e) {
      const f = eventFrame(e);
      b.frames.push(f);
      b.bytes += f.length;
      b.last = e;
    }
    if (!b.streams.has(stream)) b.streams.set(stream, b.bytes - b.frames[b.frames.length - 1]!.length);
  }

  /** Batches waiting to be written, and their bytes (each counted once, whatever its streams). */
  stats(): { batches: number; bytes: number } {
    return { batches: this.flushing.length, bytes: this.flushing.reduce((n, f) => n + f.all.length, 0) };
  }

  /** Ends the endpoint's batch of this turn: joined once, queued behind earlier batches. */
  private close(endpoint: string, b: Batch): void {
    this.batches.delete(endpoint);
    const all = b.frames.length === 1 ? b.frames[0]! : Buffer.concat(b.frames, b.bytes);
    this.flushing.push({ all, todo: [...b.streams], next: 0 });
    if (!this.running) this.run();
  }

  /** Writes queued batches to their streams for at most SLICE_MS, then yields if any remain. */
  private run(): void {
    this.running = true;
    const started = performance.now();
    while (this.flushing.length > 0) {
      const f = this.flushing[0]!;
      while (f.next < f.todo.length) {
        const [stream, from] = f.todo[f.next++]!;
        stream.sendFrame(from === 0 ? f.all : f.all.subarray(from));
        if (performance.now() - started > SLICE_MS && (f.next < f.todo.length || this.flushing.length > 1)) {
          if (f.next >= f.todo.length) this.flushing.shift();
          setImmediate(() => this.run());
          return;
        }
      }
      this.flushing.shift();
    }
    this.running = false;
  }
}
