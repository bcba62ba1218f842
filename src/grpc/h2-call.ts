/**
 * A gRPC call over one HTTP/2 stream (grpc/grpc doc/PROTOCOL-HTTP2.md): `:status 200` and the
 * request's content type echoed (`application/grpc` or `+proto`), response headers, length-prefixed
 * messages written with backpressure, and the status in trailers — or in the one HEADERS frame
 * (Trailers-Only) when no header or message went out before the end.
 *
 * Invariants: only the first `end` writes anything; once the client resets the stream, the connection
 * goes or the deadline passes, `signal` is aborted and nothing more is written (a send rejects); the
 * deadline timer is cleared whenever the stream closes.
 */
import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import {
  encodeFrame,
  readMessages,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
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

/** The encodings this side inflates, announced in `grpc-accept-encoding`. */
const ACCEPT_ENCODING = 'identity,gzip';

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The response content type for a request's: `+proto` echoed, anything else answered bare. */
function responseContentType(requestType: string | undefined): string {
  return requestType?.toLowerCase().startsWith('application/grpc+proto')
    ? 'application/grpc+proto'
    : 'application/grpc';
}

class H2Call implements WireCall {
  readonly path: string;
  readonly metadata: Metadata;
  readonly web = false;
  readonly authority: string;
  deadline: number | undefined;
  readonly #controller = new AbortController();
  readonly #stream: ServerHttp2Stream;
  readonly #contentType: string;
  readonly #messages: AsyncIterable<Uint8Array>;
  #disarm: () => void = () => undefined;
  #headersSent = false;
  #ended: CallEnd | undefined;
  /** The stream went (aborted, closed) before this side ended the call. */
  #cut = false;
  readonly closed: Promise<CallClosed>;
  #settleClosed: (c: CallClosed) => void = () => undefined;

  constructor(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, options: CallOptions) {
    this.#stream = stream;
    this.path = header(headers, ':path') ?? '/';
    this.authority = header(headers, ':authority') ?? header(headers, 'host') ?? '';
    this.metadata = requestMetadata(headers);
    this.#contentType = responseContentType(header(headers, 'content-type'));
    const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#messages = readMessages(stream, {
      maxMessageBytes,
      maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
      encoding: header(headers, 'grpc-encoding'),
      signal: this.#controller.signal,
      onError: (err) => this.#fail(err),
    });
    this.closed = new Promise<CallClosed>((resolve) => (this.#settleClosed = resolve));
    const gone = () => {
      this.#disarm();
      if (this.#ended) return;
      this.#cut = true;
      this.#ended = { code: GrpcStatus.CANCELLED, message: 'cancelled by the client' };
      this.#controller.abort(new CallError(GrpcStatus.CANCELLED, 'cancelled by the client'));
    };
    stream.once('aborted', gone);
    stream.once('close', () => {
      gone();
      // A reset after our end (RST_STREAM read after the END_STREAM that ended a bidirectional
      // call) still cuts the call: the client never took our status.
      const cancelled = this.#cut || stream.rstCode !== constants.NGHTTP2_NO_ERROR;
      if (cancelled) this.#controller.abort(new CallError(GrpcStatus.CANCELLED, 'cancelled by the client'));
      this.#settleClosed({ cancelled });
    });
    stream.on('error', () => undefined);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Arms the deadline from `grpc-timeout` (ms). */
  arm(timeoutMs: number): void {
    const { deadline, disarm } = armDeadline(timeoutMs, () =>
      this.#fail(new CallError(GrpcStatus.DEADLINE_EXCEEDED, 'deadline exceeded')),
    );
    this.deadline = deadline;
    this.#disarm = disarm;
  }

  messages(): AsyncIterable<Uint8Array> {
    return this.#messages;
  }

  sendHeaders(metadata?: Metadata): void {
    if (this.#ended || this.#headersSent || this.#stream.destroyed || this.#stream.closed) return;
    this.#respond(checkMetadata(metadata));
  }

  async send(message: Uint8Array): Promise<void> {
    if (this.#ended) throw new CallError(this.#ended.code, this.#ended.message ?? 'call ended');
    if (this.#stream.destroyed || this.#stream.closed)
      throw new CallError(GrpcStatus.CANCELLED, 'stream closed');
    if (!this.#headersSent) this.#respond({});
    if (this.#stream.write(encodeFrame(message))) return;
    await this.#drained();
  }

  end(end: CallEnd): void {
    if (this.#ended) return;
    this.#ended = end;
    this.#disarm();
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return;
    let fields: Record<string, string>;
    try {
      fields = statusTrailers(end);
    } catch (err) {
      fields = statusTrailers(endFor(err));
    }
    try {
      if (!this.#headersSent) {
        this.#headersSent = true;
        stream.respond(
          {
            ':status': 200,
            'content-type': this.#contentType,
            'grpc-accept-encoding': ACCEPT_ENCODING,
            ...fields,
          },
          { endStream: true },
        );
        return;
      }
      stream.once('wantTrailers', () => {
        try {
          stream.sendTrailers(fields);
        } catch {
          stream.close();
        }
      });
      stream.end();
    } catch {
      stream.close();
    }
  }

  /** Ends the call for a wire-side reason (bad frame, deadline) and aborts the handler's signal. */
  #fail(err: CallError): void {
    if (this.#ended) return;
    this.end({ code: err.code, message: err.message });
    this.#controller.abort(err);
  }

  #respond(metadata: Metadata): void {
    this.#headersSent = true;
    this.#stream.respond(
      {
        ':status': 200,
        'content-type': this.#contentType,
        'grpc-accept-encoding': ACCEPT_ENCODING,
        ...metadata,
      },
      { waitForTrailers: true },
    );
  }

  #drained(): Promise<void> {
    const stream = this.#stream;
    const signal = this.#controller.signal;
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        stream.off('drain', done);
        stream.off('close', done);
        signal.removeEventListener('abort', done);
        if (signal.aborted) reject(signal.reason as Error);
        else if (stream.closed || stream.destroyed)
          reject(new CallError(GrpcStatus.CANCELLED, 'stream closed'));
        else resolve();
      };
      stream.on('drain', done);
      stream.on('close', done);
      signal.addEventListener('abort', done);
    });
  }
}

/**
 * A call over `stream` (the request's `headers` given), without running anything: for serving code
 * that runs the handler itself. Throws CallError(INTERNAL) for a malformed `grpc-timeout`.
 */
export function createH2Call(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  options: CallOptions = {},
): WireCall {
  const timeout = parseGrpcTimeout(header(headers, 'grpc-timeout'));
  const call = new H2Call(stream, headers, options);
  if (timeout !== undefined) call.arm(timeout);
  return call;
}

/**
 * Serves one gRPC request stream with `handler`: a method other than POST is answered 405, a malformed
 * `grpc-timeout` INTERNAL (Trailers-Only); then the handler runs and every outcome ends the call.
 */
export async function serveH2Call(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  handler: GrpcHandler,
  options: CallOptions = {},
): Promise<void> {
  stream.on('error', () => undefined);
  if (header(headers, ':method') !== 'POST') {
    if (!stream.destroyed) stream.respond({ ':status': 405, allow: 'POST' }, { endStream: true });
    return;
  }
  let call: WireCall;
  try {
    call = createH2Call(stream, headers, options);
  } catch (err) {
    const fields = statusTrailers(endFor(err));
    if (!stream.destroyed) {
      stream.respond(
        { ':status': 200, 'content-type': responseContentType(undefined), ...fields },
        { endStream: true },
      );
    }
    stream.resume();
    return;
  }
  await runHandler(call, handler);
}
