/**
 * A Server-Sent-Events stream over a raw Node response: the headers, an opening comment and
 * `retry:` hint, one `event:`/`data:` block per event, a heartbeat comment so that proxies and
 * browsers keep an idle stream open, and a bound on what a slow reader may leave buffered.
 *
 * A stream ends in one of four ways, and each runs the `onClose` callbacks exactly once: the client
 * goes away, `close()` is called (server shutdown), the reader falls too far behind (its connection is
 * destroyed), or the connection was already gone when the stream was opened.
 */
import type { ServerResponse } from 'node:http';
import { resetConnection } from '../http/index.js';
import { sseFrame } from './sse-frame.js';
import type { SseHub } from './sse-hub.js';

/** Heartbeat period: well under the 30–60 s idle timeouts of common proxies. */
export const HEARTBEAT_MS = 15_000;
/** Reconnection delay suggested to EventSource clients. */
export const RETRY_MS = 3000;
/**
 * Reconnection delay suggested as a stream is closed by a server shutting down: the browser comes
 * back at once, to another instance behind the load balancer.
 */
export const CLOSE_RETRY_MS = 1000;
/** Bytes a client may leave unread before its connection is destroyed (SSE_MAX_BUFFERED's default). */
export const MAX_BUFFERED = 256 * 1024;

export interface SseOptions {
  heartbeatMs?: number;
  retryMs?: number;
  maxBuffered?: number;
  /** The instance's streams together (SSE_MAX_BUFFERED_TOTAL), when the stream counts among them. */
  hub?: SseHub;
}

/** The heartbeat comment, one Buffer for every stream. */
const HEARTBEAT = Buffer.from(': heartbeat\n\n');

export interface SseStream {
  /** Writes one event; false once the stream is closed. */
  send(event: string, data: unknown): boolean;
  /** Writes an event already serialised (eventFrame: one Buffer shared by every stream); false once closed. */
  sendFrame(frame: Buffer): boolean;
  /**
   * Ends the stream (idempotent): cleanly if the reader has read everything, else by destroying it.
   * `retryMs`: a last `retry:` line, the reconnection delay the client uses next.
   */
  close(opts?: { retryMs?: number }): void;
  readonly closed: boolean;
  /** Called once when the stream ends, whoever ended it. */
  onClose(fn: () => void): void;
}

/**
 * Starts an event stream on `res` (already taken over from the framework). Event names are sent
 * as given and must not contain line breaks; `data` is written as one line of JSON.
 */
export function openSse(res: ServerResponse, opts: SseOptions = {}): SseStream {
  const heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
  const maxBuffered = opts.maxBuffered ?? MAX_BUFFERED;
  const closers: (() => void)[] = [];
  let closed = false;
  let heartbeat: NodeJS.Timeout | undefined;

  /** Marks the stream closed and releases what it holds; the connection itself is the caller's. */
  function release(): void {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    opts.hub?.remove(self);
    for (const fn of closers.splice(0)) fn();
  }

  /**
   * Destroys the connection: what is buffered for it is dropped at once. `res.end()` would queue the
   * end behind the unread bytes and keep them, and the socket, for as long as the client stays. A
   * reset (RST) also drops what the kernel still holds for the peer, where a plain close would keep
   * trying to deliver it; a socket that cannot be reset (TLS) is destroyed.
   */
  function cut(): void {
    release();
    resetConnection(res);
  }

  /**
   * Bytes waiting in this process for the reader, once what the kernel will take has been handed to
   * it: Node corks a response's writes until the end of the tick and sends them together.
   */
  function unread(): number {
    if (res.writableLength > 0) res.socket?.uncork();
    return res.writableLength;
  }

  // What earlier ticks left unread, measured at the first write of each tick. Events often come in
  // bursts (a history batch is up to 500 request.created at once) that even a reader keeping up
  // cannot have taken before the tick ends; what is still there a tick later, it has not read.
  let carried: number | undefined;

  const self = { res, cut };

  function write(chunk: Buffer): boolean {
    if (closed) return false;
    // The instance's bound first: it may reset this very stream.
    opts.hub?.beforeWrite();
    if (closed) return false;
    if (carried === undefined) {
      carried = res.writableLength;
      process.nextTick(() => (carried = undefined));
    }
    // Everything queued counts, events and heartbeats alike. A reader more than the bound behind is
    // cut; within one tick, a burst may queue as much again before the kernel has had its chance.
    if (carried > maxBuffered || (res.writableLength > 2 * maxBuffered && unread() > 2 * maxBuffered)) {
      // A reader this far behind has lost the thread anyway; EventSource reconnects and refetches.
      cut();
      return false;
    }
    res.write(chunk);
    // Handed to the kernel now, not when the tick ends (Node corks a response's writes until then):
    // the copy into the socket is the cost of an event, and a writer of many streams (sse-batch.ts)
    // must see it where it measures its slices, not all at once after them.
    res.socket?.uncork();
    return true;
  }

  res.on('close', release);
  res.on('error', cut);
  if (res.destroyed) {
    // The client left while the request was being authorised: 'close' has already been emitted.
    release();
  } else {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx buffers proxied responses unless told not to.
      'x-accel-buffering': 'no',
    });
    // Headers and a first comment at once: clients wait for the first bytes to call the stream open.
    res.write(`: mockingbird event stream\nretry: ${opts.retryMs ?? RETRY_MS}\n\n`);
    heartbeat = setInterval(() => write(HEARTBEAT), heartbeatMs);
    heartbeat.unref();
    opts.hub?.add(self);
  }

  return {
    send: (event, data) => write(sseFrame(event, data)),
    sendFrame: write,
    close(closeOpts) {
      if (closed) return;
      // Ending politely behind unread bytes would hold the server's shutdown until the reader reads.
      if (unread() > 0) cut();
      else {
        release();
        res.end(closeOpts?.retryMs === undefined ? undefined : `retry: ${closeOpts.retryMs}\n\n`);
      }
    },
    get closed() {
      return closed;
    },
    onClose(fn) {
      if (closed) fn();
      else closers.push(fn);
    },
  };
}
