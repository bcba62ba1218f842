/**
 * gRPC length-prefixed message framing (grpc/grpc doc/PROTOCOL-HTTP2.md, "Length-Prefixed-Message"):
 * one flags byte (0x01 compressed; 0x80 a gRPC-Web trailer frame) and a 4-byte big-endian length.
 *
 * Invariants: a frame's declared length is checked against `maxMessageBytes` as soon as its 5-byte
 * header is in, so an oversized message is refused before its bytes are buffered; gzip is inflated
 * by zlib with `maxOutputLength`, so a small bomb cannot grow past the same bound; a reader of a
 * request body buffers at most `maxBufferedBytes` of whole messages before it pauses its source
 * (transport flow control then holds the client back).
 */
import type { Readable } from 'node:stream';
import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { CallError, GrpcStatus } from './types.js';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

/** Bytes of a frame header: flags and length. */
export const FRAME_HEADER_BYTES = 5;
/** Flag bit: the message is compressed with the call's `grpc-encoding`. */
export const FLAG_COMPRESSED = 0x01;
/** Flag bit (gRPC-Web): the frame holds the trailers, not a message. */
export const FLAG_TRAILERS = 0x80;
/** Default bound on one message, framed or inflated (grpc's own default receive limit: 4 MiB). */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** Default bound on whole messages a reader holds that the handler has not taken yet. */
export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** The `grpc-encoding` values this side reads and writes. */
export const SUPPORTED_ENCODINGS = ['identity', 'gzip'] as const;

/** One frame, out of its header; `data` is still compressed when `flags & FLAG_COMPRESSED`. */
export interface Frame {
  flags: number;
  data: Buffer;
}

export interface DecoderOptions {
  /** Largest frame accepted (bytes of its payload). */
  maxMessageBytes: number;
  /** Accept frames flagged FLAG_TRAILERS (reading a gRPC-Web answer); refused otherwise. */
  allowTrailers?: boolean;
}

/** Frames `message` with `flags` (header and payload in one buffer). */
export function encodeFrame(message: Uint8Array, flags = 0): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + message.length);
  out[0] = flags;
  out.writeUInt32BE(message.length, 1);
  out.set(message, FRAME_HEADER_BYTES);
  return out;
}

/** Frames `message`, gzip-compressed (flag 0x01) when `encoding` is `gzip`. */
export async function encodeMessage(message: Uint8Array, encoding: string = 'identity'): Promise<Buffer> {
  if (encoding !== 'gzip') return encodeFrame(message);
  return encodeFrame(await gzipAsync(message), FLAG_COMPRESSED);
}

/**
 * Splits a byte stream into frames, whatever the chunking: a frame may span chunks and a chunk may hold
 * several frames. Throws a CallError: RESOURCE_EXHAUSTED for a frame over the bound, INTERNAL for a
 * flag it does not know or (in `end`) a body cut inside a frame.
 */
export class FrameDecoder {
  readonly #max: number;
  readonly #allowTrailers: boolean;
  #chunks: Buffer[] = [];
  #buffered = 0;

  constructor(options: DecoderOptions) {
    this.#max = options.maxMessageBytes;
    this.#allowTrailers = options.allowTrailers ?? false;
  }

  /** Bytes held of a frame not yet complete. */
  get pendingBytes(): number {
    return this.#buffered;
  }

  /** Takes a chunk, returns the frames it completes. */
  push(chunk: Uint8Array): Frame[] {
    if (chunk.length > 0) {
      this.#chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
      this.#buffered += chunk.length;
    }
    const frames: Frame[] = [];
    for (;;) {
      if (this.#buffered < FRAME_HEADER_BYTES) return frames;
      const head = this.#peek(FRAME_HEADER_BYTES);
      const flags = head[0] ?? 0;
      const length = head.readUInt32BE(1);
      this.#checkFlags(flags);
      if (length > this.#max) {
        throw new CallError(
          GrpcStatus.RESOURCE_EXHAUSTED,
          `message of ${length} bytes is over the limit of ${this.#max} bytes`,
        );
      }
      if (this.#buffered < FRAME_HEADER_BYTES + length) return frames;
      const whole = this.#take(FRAME_HEADER_BYTES + length);
      frames.push({ flags, data: whole.subarray(FRAME_HEADER_BYTES) });
    }
  }

  /** The source ended: throws when it ended inside a frame. */
  end(): void {
    if (this.#buffered > 0) {
      throw new CallError(
        GrpcStatus.INTERNAL,
        `request body ended inside a message (${this.#buffered} bytes left)`,
      );
    }
  }

  #checkFlags(flags: number): void {
    const known = FLAG_COMPRESSED | (this.#allowTrailers ? FLAG_TRAILERS : 0);
    if ((flags & ~known) !== 0) {
      throw new CallError(
        GrpcStatus.INTERNAL,
        `invalid message flags 0x${flags.toString(16).padStart(2, '0')}`,
      );
    }
  }

  #peek(n: number): Buffer {
    const first = this.#chunks[0];
    if (first && first.length >= n) return first;
    const joined = Buffer.concat(this.#chunks);
    this.#chunks = [joined];
    return joined;
  }

  #take(n: number): Buffer {
    const all = this.#peek(n);
    const taken = all.subarray(0, n);
    const rest = all.subarray(n);
    this.#chunks.shift();
    if (rest.length > 0) this.#chunks.unshift(rest);
    this.#buffered -= n;
    return taken;
  }
}

/**
 * A frame's message, inflated when compressed. `encoding` is the request's `grpc-encoding`. Throws a
 * CallError: UNIMPLEMENTED for an encoding other than gzip/identity, INTERNAL for a compressed frame
 * without an encoding or a corrupt gzip stream, RESOURCE_EXHAUSTED when it inflates past the bound.
 */
export async function decodeMessage(
  frame: Frame,
  encoding: string | undefined,
  maxMessageBytes: number,
): Promise<Uint8Array> {
  if ((frame.flags & FLAG_COMPRESSED) === 0) return frame.data;
  if (encoding === undefined || encoding === 'identity') {
    throw new CallError(GrpcStatus.INTERNAL, 'compressed message without a grpc-encoding');
  }
  if (encoding !== 'gzip') {
    throw new CallError(GrpcStatus.UNIMPLEMENTED, `unsupported grpc-encoding "${encoding}"`);
  }
  try {
    return await gunzipAsync(frame.data, { maxOutputLength: maxMessageBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new CallError(
        GrpcStatus.RESOURCE_EXHAUSTED,
        `message inflates past the limit of ${maxMessageBytes} bytes`,
      );
    }
    throw new CallError(GrpcStatus.INTERNAL, 'corrupt gzip message');
  }
}

export interface ReaderOptions {
  maxMessageBytes: number;
  /** Whole messages held for the handler before the source is paused. */
  maxBufferedBytes: number;
  encoding: string | undefined;
  /** Turns the source's chunks into frame bytes (gRPC-Web text: base64). Throws a CallError. */
  transform?: (chunk: Buffer) => Buffer;
  /** Called on the first error (a CallError) so the transport can end the call. */
  onError: (err: CallError) => void;
  /** The call's signal: once aborted, reading stops and the iterable throws CANCELLED. */
  signal?: AbortSignal;
}

/**
 * Reads request messages from `source` (a request body) into an async iterable, pausing the source
 * while `maxBufferedBytes` of messages wait for the handler. One iteration only. The iterable ends
 * when the source ends; it throws the CallError that stopped reading.
 */
export function readMessages(source: Readable, options: ReaderOptions): AsyncIterable<Uint8Array> {
  const decoder = new FrameDecoder({ maxMessageBytes: options.maxMessageBytes });
  const queue: Uint8Array[] = [];
  let queuedBytes = 0;
  let ended = false;
  let failure: CallError | undefined;
  let wake: (() => void) | undefined;
  let chain = Promise.resolve();
  let inflight = 0;

  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const fail = (err: unknown) => {
    if (failure) return;
    failure = err instanceof CallError ? err : new CallError(GrpcStatus.INTERNAL, 'unreadable request body');
    source.removeListener('data', onData);
    source.resume();
    options.onError(failure);
    notify();
  };
  const onData = (chunk: Buffer) => {
    if (failure) return;
    let frames: Frame[];
    try {
      frames = decoder.push(options.transform ? options.transform(chunk) : chunk);
    } catch (err) {
      fail(err);
      return;
    }
    for (const frame of frames) {
      inflight++;
      chain = chain.then(async () => {
        if (failure) return;
        try {
          const message = await decodeMessage(frame, options.encoding, options.maxMessageBytes);
          queue.push(message);
          queuedBytes += message.length;
          if (queuedBytes >= options.maxBufferedBytes) source.pause();
        } catch (err) {
          fail(err);
        } finally {
          inflight--;
          notify();
        }
      });
    }
  };
  source.on('data', onData);
  source.once('end', () => {
    chain = chain.then(() => {
      try {
        decoder.end();
      } catch (err) {
        fail(err);
      }
      ended = true;
      notify();
    });
  });
  let sawEnd = false;
  source.once('end', () => (sawEnd = true));
  const cutOff = () => {
    if (!sawEnd) fail(new CallError(GrpcStatus.CANCELLED, 'request body was cut off'));
  };
  source.once('error', cutOff);
  source.once('close', cutOff);
  options.signal?.addEventListener(
    'abort',
    () => fail(new CallError(GrpcStatus.CANCELLED, 'call cancelled')),
    {
      once: true,
    },
  );

  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = queue.shift();
        if (next) {
          queuedBytes -= next.length;
          if (queuedBytes < options.maxBufferedBytes && !failure && !ended) source.resume();
          yield next;
          continue;
        }
        if (failure) throw failure;
        if (ended && inflight === 0) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}
