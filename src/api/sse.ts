/**
 * A Server-Sent-Events stream over a raw Node response: the headers, an opening comment and
 * `retry:` hint, one `event:`/`data:` block per event, a heartbeat comment so that proxies and
 * browsers keep an idle stream open, and a bound on what a slow reader may leave buffered.
 */
import type { ServerResponse } from 'node:http';

/** Heartbeat period: well under the 30–60 s idle timeouts of common proxies. */
export const HEARTBEAT_MS = 15_000;
/** Reconnection delay suggested to EventSource clients. */
export const RETRY_MS = 3000;
/** Bytes a client may leave unread before its stream is ended (it reconnects and refetches). */
export const MAX_BUFFERED = 1024 * 1024;

export interface SseOptions {
  heartbeatMs?: number;
  retryMs?: number;
  maxBuffered?: number;
}

export interface SseStream {
  /** Writes one event; false once the stream is closed. */
  send(event: string, data: unknown): boolean;
  /** Ends the stream (idempotent). */
  close(): void;
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

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // nginx buffers proxied responses unless told not to.
    'x-accel-buffering': 'no',
  });
  // Headers and a first comment at once: clients wait for the first bytes to call the stream open.
  res.write(`: mockingbird event stream\nretry: ${opts.retryMs ?? RETRY_MS}\n\n`);

  const heartbeat = setInterval(() => write(': heartbeat\n\n'), heartbeatMs);
  heartbeat.unref();

  function finish(): void {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    if (!res.writableEnded) res.end();
    for (const fn of closers.splice(0)) fn();
  }

  function write(chunk: string): boolean {
    if (closed) return false;
    if (res.writableLength > maxBuffered) {
      // A reader this far behind has lost the thread anyway; ending lets EventSource reconnect.
      finish();
      return false;
    }
    res.write(chunk);
    return true;
  }

  res.on('close', finish);
  res.on('error', finish);
  // The client left while the request was being authorised: 'close' was emitted before there was a
  // listener, and the stream's subscription and slot would be held for good.
  if (res.destroyed) finish();

  return {
    send: (event, data) => write(`event: ${event}\ndata: ${JSON.stringify(data ?? null)}\n\n`),
    close: finish,
    get closed() {
      return closed;
    },
    onClose(fn) {
      if (closed) fn();
      else closers.push(fn);
    },
  };
}
