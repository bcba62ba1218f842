/**
 * A gRPC-Web call (grpc/grpc doc/PROTOCOL-WEB.md) over an HTTP/1.1 request, an HTTP/2 compat request
 * (same API) or a raw HTTP/2 stream: messages framed as in gRPC, the status sent as a last frame
 * flagged 0x80 holding `key:value\r\n` lines (or, when nothing went out before the end, as headers of
 * an empty answer: Trailers-Only). `application/grpc-web-text` is base64 both ways: the request may
 * be cut anywhere and hold several padded runs; each answer write is its own padded run.
 *
 * CORS: a preflight is answered 204 with the Origin echoed and the requested headers allowed; answers
 * expose `grpc-status`, `grpc-message`, `grpc-status-details-bin` and the metadata they carry.
 * Invariants as in h2-call.ts: only the first `end` writes; once the client goes, nothing is written.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { constants, type ServerHttp2Stream } from 'node:http2';
import type { Readable } from 'node:stream';
import {
  encodeFrame,
  readMessages,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  FLAG_TRAILERS,
} from './frames.js';
import { armDeadline, parseGrpcTimeout } from './timeout.js';
import type { CallClosed, CallEnd, Metadata } from './types.js';
import { CallError, GrpcStatus } from './types.js';
import {
  checkMetadata,
  endFor,
  requestMetadata,
  runHandler,
  statusTrailers,
  type CallOptions,
  type GrpcHandler,
  type WireCall,
} from './wire-common.js';

/** Seconds a browser may cache the preflight answer. */
export const WEB_PREFLIGHT_MAX_AGE = 600;
/** Headers every gRPC-Web answer lets a page read. */
const ALWAYS_EXPOSED = ['grpc-status', 'grpc-message', 'grpc-status-details-bin'];

/** One HTTP exchange, whatever carried it. */
export interface WebExchange {
  readonly headers: IncomingHttpHeaders;
  readonly method: string;
  /** The request body. */
  readonly body: Readable;
  writeHead(status: number, headers: OutgoingHttpHeaders): void;
  /** False when the caller should wait for 'drain'. */
  write(chunk: Buffer): boolean;
  end(): void;
  /** Calls `listener` once when the transport can take more; returns a function that cancels it. */
  onDrain(listener: () => void): () => void;
  /**
   * Calls `listener` once when the exchange closes: `cut` when the answer had not all gone out (the
   * connection closed, the stream was reset), even after `end`.
   */
  onClose(listener: (cut: boolean) => void): void;
}

/** The part of IncomingMessage/Http2ServerRequest used here. */
type WebRequest = Readable & { headers: IncomingHttpHeaders; method?: string | undefined };
/** The part of ServerResponse/Http2ServerResponse used here. */
interface WebResponse {
  writeHead(status: number, headers: OutgoingHttpHeaders): unknown;
  write(chunk: Buffer): boolean;
  end(): unknown;
  on(event: 'drain' | 'close' | 'error', listener: () => void): unknown;
  once(event: 'drain' | 'close' | 'finish', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

/** An exchange over Node's HTTP/1.1 request and response, or an HTTP/2 compat pair. */
export function webExchange(req: WebRequest, res: WebResponse): WebExchange {
  res.on('error', () => undefined);
  // 'finish': the whole answer was handed to the socket; a 'close' before it is a cut.
  let finished = false;
  res.once('finish', () => (finished = true));
  return {
    headers: req.headers,
    method: req.method ?? 'GET',
    body: req,
    writeHead: (status, headers) => void res.writeHead(status, headers),
    write: (chunk) => res.write(chunk),
    end: () => void res.end(),
    onDrain(listener) {
      res.once('drain', listener);
      return () => res.off('drain', listener);
    },
    onClose: (listener) => void res.once('close', () => listener(!finished)),
  };
}

/** An exchange over a raw HTTP/2 stream (as `acceptH2c`'s `onStream` gives it). */
export function webExchangeH2(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): WebExchange {
  stream.on('error', () => undefined);
  let finished = false;
  stream.once('finish', () => (finished = true));
  const method = headers[':method'];
  return {
    headers,
    method: typeof method === 'string' ? method : 'GET',
    body: stream,
    writeHead: (status, h) => stream.respond({ ...h, ':status': status }),
    write: (chunk) => stream.write(chunk),
    end: () => void stream.end(),
    onDrain(listener) {
      stream.once('drain', listener);
      return () => stream.off('drain', listener);
    },
    onClose: (listener) =>
      void stream.once('close', () => listener(!finished || stream.rstCode !== constants.NGHTTP2_NO_ERROR)),
  };
}

function first(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Answers a CORS preflight: 204, Origin echoed, POST, the requested headers, WEB_PREFLIGHT_MAX_AGE. */
export function answerWebPreflight(ex: WebExchange): void {
  const origin = first(ex.headers, 'origin');
  ex.writeHead(204, {
    'access-control-allow-origin': origin ?? '*',
    'access-control-allow-methods': 'POST',
    'access-control-allow-headers': first(ex.headers, 'access-control-request-headers') ?? '',
    'access-control-max-age': String(WEB_PREFLIGHT_MAX_AGE),
    ...(origin ? { vary: 'Origin' } : {}),
  });
  ex.end();
  ex.body.resume();
}

/** A base64 decoder for a body cut anywhere, holding several padded runs; throws CallError(INTERNAL). */
function base64Decoder(): (chunk: Buffer) => Buffer {
  let carry = '';
  return (chunk) => {
    const text = carry + chunk.toString('latin1').replace(/[\r\n\t ]/g, '');
    if (!/^[A-Za-z0-9+/=]*$/.test(text))
      throw new CallError(GrpcStatus.INTERNAL, 'invalid base64 in grpc-web-text');
    const whole = text.length - (text.length % 4);
    carry = text.slice(whole);
    const parts: Buffer[] = [];
    for (const run of text.slice(0, whole).match(/[^=]*=*/g) ?? []) {
      if (run.length === 0) continue;
      if (run.length % 4 !== 0) throw new CallError(GrpcStatus.INTERNAL, 'invalid base64 in grpc-web-text');
      parts.push(Buffer.from(run, 'base64'));
    }
    return Buffer.concat(parts);
  };
}

class WebCall implements WireCall {
  readonly path: string;
  readonly metadata: Metadata;
  readonly web = true;
  readonly authority: string;
  deadline: number | undefined;
  readonly #controller = new AbortController();
  readonly #ex: WebExchange;
  readonly #contentType: string;
  readonly #text: boolean;
  readonly #origin: string | undefined;
  readonly #messages: AsyncIterable<Uint8Array>;
  #disarm: () => void = () => undefined;
  #headersSent = false;
  #ended: CallEnd | undefined;
  readonly closed: Promise<CallClosed>;
  #settleClosed: (c: CallClosed) => void = () => undefined;

  constructor(ex: WebExchange, path: string, options: CallOptions) {
    this.#ex = ex;
    this.path = path;
    this.authority = first(ex.headers, ':authority') ?? first(ex.headers, 'host') ?? '';
    this.metadata = requestMetadata(ex.headers);
    const type = (first(ex.headers, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    this.#text = type.startsWith('application/grpc-web-text');
    this.#contentType = type;
    this.#origin = first(ex.headers, 'origin');
    const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#messages = readMessages(ex.body, {
      maxMessageBytes,
      maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
      encoding: first(ex.headers, 'grpc-encoding'),
      signal: this.#controller.signal,
      onError: (err) => this.#fail(err),
      ...(this.#text ? { transform: base64Decoder() } : {}),
    });
    this.closed = new Promise<CallClosed>((resolve) => (this.#settleClosed = resolve));
    ex.onClose((cut) => {
      this.#disarm();
      const cancelled = cut || this.#ended === undefined;
      this.#ended ??= { code: GrpcStatus.CANCELLED, message: 'cancelled by the client' };
      if (cancelled) this.#controller.abort(new CallError(GrpcStatus.CANCELLED, 'cancelled by the client'));
      this.#settleClosed({ cancelled });
    });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  arm(timeoutMs: number): void {
    const armed = armDeadline(timeoutMs, () =>
      this.#fail(new CallError(GrpcStatus.DEADLINE_EXCEEDED, 'deadline exceeded')),
    );
    this.deadline = armed.deadline;
    this.#disarm = armed.disarm;
  }

  messages(): AsyncIterable<Uint8Array> {
    return this.#messages;
  }

  sendHeaders(metadata?: Metadata): void {
    if (this.#ended || this.#headersSent) return;
    this.#writeHead(checkMetadata(metadata));
  }

  async send(message: Uint8Array): Promise<void> {
    if (this.#ended) throw new CallError(this.#ended.code, this.#ended.message ?? 'call ended');
    if (!this.#headersSent) this.#writeHead({});
    if (this.#write(encodeFrame(message))) return;
    await this.#drained();
  }

  end(end: CallEnd): void {
    if (this.#ended) return;
    this.#ended = end;
    this.#disarm();
    let fields: Record<string, string>;
    try {
      fields = statusTrailers(end);
    } catch (err) {
      fields = statusTrailers(endFor(err));
    }
    try {
      if (!this.#headersSent) {
        this.#writeHead(fields);
      } else {
        const lines = Object.entries(fields)
          .map(([k, v]) => `${k}:${v}\r\n`)
          .join('');
        this.#write(encodeFrame(Buffer.from(lines, 'latin1'), FLAG_TRAILERS));
      }
      this.#ex.end();
    } catch {
      this.#ex.body.destroy();
    }
  }

  #fail(err: CallError): void {
    if (this.#ended) return;
    this.end({ code: err.code, message: err.message });
    this.#controller.abort(err);
  }

  #write(bytes: Buffer): boolean {
    return this.#ex.write(this.#text ? Buffer.from(bytes.toString('base64'), 'latin1') : bytes);
  }

  #writeHead(fields: Metadata): void {
    this.#headersSent = true;
    const headers: OutgoingHttpHeaders = { 'content-type': this.#contentType, ...fields };
    if (this.#origin !== undefined) {
      headers['access-control-allow-origin'] = this.#origin;
      headers['vary'] = 'Origin';
      const exposed = new Set([...ALWAYS_EXPOSED, ...Object.keys(fields)]);
      headers['access-control-expose-headers'] = [...exposed].join(', ');
    }
    this.#ex.writeHead(200, headers);
  }

  #drained(): Promise<void> {
    const signal = this.#controller.signal;
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        cancel();
        signal.removeEventListener('abort', done);
        if (signal.aborted) reject(signal.reason as Error);
        else resolve();
      };
      const cancel = this.#ex.onDrain(done);
      signal.addEventListener('abort', done);
    });
  }
}

/**
 * Serves one gRPC-Web exchange with `handler`: a CORS preflight is answered, a method other than POST
 * gets 405, a malformed `grpc-timeout` ends INTERNAL; then the handler runs and every outcome ends
 * the call. `path` is the request's path (`/pkg.Service/Method`, without a query).
 */
export async function serveWebCall(
  ex: WebExchange,
  path: string,
  handler: GrpcHandler,
  options: CallOptions = {},
): Promise<void> {
  ex.body.on('error', () => undefined);
  if (ex.method === 'OPTIONS') {
    answerWebPreflight(ex);
    return;
  }
  if (ex.method !== 'POST') {
    ex.writeHead(405, { allow: 'POST, OPTIONS' });
    ex.end();
    ex.body.resume();
    return;
  }
  let timeout: number | undefined;
  const call = new WebCall(ex, path, options);
  try {
    timeout = parseGrpcTimeout(first(ex.headers, 'grpc-timeout'));
  } catch (err) {
    call.end(endFor(err));
    ex.body.resume();
    return;
  }
  if (timeout !== undefined) call.arm(timeout);
  await runHandler(call, handler);
}
