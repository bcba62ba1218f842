/**
 * HTTP/2 beside HTTP/1.1 on the server's existing ports (SPEC §13): h2c on the cleartext port for a
 * connection that opens with the client preface, and `h2` on the TLS port chosen by ALPN only when the
 * client offers h2 and not http/1.1 (gRPC clients; browsers and curl offer both and keep HTTP/1.1).
 * HTTP/2 connections go to an internal `http2.createServer()`; its streams go to `onStream`.
 *
 * Invariants: an HTTP/1.1 connection reaches Node's own connection listener with its first bytes put
 * back (`unshift`) and gets the same answers as before, though its first bytes now reach the parser
 * in one piece, so a small request's body can end in the same tick as its head (readers of a body must
 * check `readableEnded`, as http/body.ts and tunnel/peer.ts do); every other 'connection' listener (the
 * per-IP cap, HTTP/2 connections included) still sees every socket. A connection that sends nothing is handed to HTTP/1.1 after
 * `server.headersTimeout`, whose own timeouts then close it. Streams per connection, header list
 * size and idle connections are bounded; a session error or garbage frame closes that session only.
 */
import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import {
  createServer as createH2Server,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** Default SETTINGS_MAX_CONCURRENT_STREAMS per connection. */
export const DEFAULT_MAX_CONCURRENT_STREAMS = 100;
/** Default SETTINGS_MAX_HEADER_LIST_SIZE (uncompressed bytes of one request's headers). */
export const DEFAULT_MAX_HEADER_LIST_BYTES = 16 * 1024;
/** Default time an HTTP/2 connection may stay open without a stream (ms). */
export const DEFAULT_H2_IDLE_TIMEOUT_MS = 120_000;

/** The HTTP/2 client connection preface (RFC 9113 §3.4). */
export const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** Bounds of the HTTP/2 side. */
export interface H2Options {
  /** Streams a client may have open at once on one connection (default 100). */
  maxConcurrentStreams?: number;
  /** Largest header list accepted (default 16 KiB). */
  maxHeaderListBytes?: number;
  /** An HTTP/2 connection with no open stream is closed after this (ms, default 120 s). */
  idleTimeoutMs?: number;
  /** h2c only: wait this long for a first byte before handing a socket to HTTP/1.1 (ms). */
  prefaceTimeoutMs?: number;
}

/** Called for each gRPC, gRPC-Web or CORS preflight stream of an HTTP/2 connection. */
export type StreamHandler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, socket: Socket) => void;

/** The HTTP/2 half attached to a server. */
export interface H2Acceptor {
  /** The internal HTTP/2 server (never listening itself). */
  readonly h2: Http2Server;
  /** HTTP/2 connections open now. */
  sessionCount(): number;
  /** Sends GOAWAY to every HTTP/2 connection (open streams finish); `force` destroys them at once. */
  close(force?: boolean): void;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** True for gRPC over HTTP/2: `application/grpc`, `application/grpc+<subtype>`. */
export function isGrpc(contentType: string | undefined): boolean {
  const t = mediaType(contentType);
  return t === 'application/grpc' || t.startsWith('application/grpc+');
}

/** True for gRPC-Web: `application/grpc-web[+proto]`, `application/grpc-web-text[+proto]`. */
export function isGrpcWeb(contentType: string | undefined): boolean {
  const t = mediaType(contentType);
  return (
    t === 'application/grpc-web' ||
    t.startsWith('application/grpc-web+') ||
    t === 'application/grpc-web-text' ||
    t.startsWith('application/grpc-web-text+')
  );
}

/**
 * The ALPN answer of the TLS port: `h2` when the client offers it and not http/1.1, else http/1.1
 * when offered, else undefined (the handshake fails, as it did with only http/1.1 configured).
 */
export function selectAlpn(protocols: readonly string[]): string | undefined {
  if (protocols.includes('h2') && !protocols.includes('http/1.1')) return 'h2';
  return protocols.includes('http/1.1') ? 'http/1.1' : undefined;
}

const NOT_GRPC =
  'This port speaks HTTP/2 for gRPC only (content-type application/grpc or application/grpc-web). ' +
  'Send other requests over HTTP/1.1.\n';

function createAcceptor(onStream: StreamHandler, options: H2Options): H2Acceptor {
  const idleMs = options.idleTimeoutMs ?? DEFAULT_H2_IDLE_TIMEOUT_MS;
  const h2 = createH2Server({
    settings: {
      maxConcurrentStreams: options.maxConcurrentStreams ?? DEFAULT_MAX_CONCURRENT_STREAMS,
      maxHeaderListSize: options.maxHeaderListBytes ?? DEFAULT_MAX_HEADER_LIST_BYTES,
      enablePush: false,
    },
    maxHeaderListPairs: 256,
  });
  const sessions = new Set<ServerHttp2Session>();
  h2.on('sessionError', () => undefined);
  h2.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.on('error', () => undefined);
    let open = 0;
    let idle: NodeJS.Timeout | undefined;
    const arm = () => {
      idle = setTimeout(() => session.close(), idleMs);
      idle.unref();
    };
    arm();
    session.on('stream', (stream: ServerHttp2Stream) => {
      open++;
      clearTimeout(idle);
      stream.once('close', () => {
        if (--open === 0 && !session.closed && !session.destroyed) arm();
      });
    });
    session.once('close', () => {
      clearTimeout(idle);
      sessions.delete(session);
    });
  });
  h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', () => undefined);
    const preflight =
      headers[':method'] === 'OPTIONS' && headers['access-control-request-method'] !== undefined;
    const type = headers['content-type'];
    if (preflight || isGrpc(type) || isGrpcWeb(type)) {
      onStream(stream, headers, stream.session?.socket as Socket);
      return;
    }
    if (stream.destroyed) return;
    stream.respond({ ':status': 415, 'content-type': 'text/plain; charset=utf-8' });
    stream.end(NOT_GRPC);
    stream.resume();
  });
  return {
    h2,
    sessionCount: () => sessions.size,
    close(force = false) {
      for (const s of sessions) {
        if (force) s.destroy();
        else s.close();
      }
    },
  };
}

type ConnectionListener = (this: unknown, socket: Socket) => void;

/** Takes Node's own listener for `event` off `server` (the one its constructor added). */
function takeNodeListener(server: HttpServer, event: string): ConnectionListener {
  const listeners = server.listeners(event) as ConnectionListener[];
  const own = listeners.find((l) => l.name === 'connectionListener');
  if (!own) throw new Error(`cannot find Node's ${event} listener on this server`);
  server.removeListener(event, own);
  return own;
}

/** Peeks at a socket's first bytes; `route` gets whether they are the HTTP/2 preface, bytes put back. */
function sniff(socket: Socket, timeoutMs: number, route: (h2: boolean) => void): void {
  const chunks: Buffer[] = [];
  let done = false;
  const settle = (h2: boolean) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    socket.off('readable', onReadable);
    socket.off('end', onEnd);
    socket.off('close', onClose);
    socket.off('error', onClose);
    try {
      if (chunks.length > 0) socket.unshift(Buffer.concat(chunks));
    } catch {
      socket.destroy();
      return;
    }
    route(h2);
  };
  const onReadable = () => {
    let chunk: Buffer | null;
    while ((chunk = socket.read() as Buffer | null) !== null) chunks.push(chunk);
    const data = Buffer.concat(chunks);
    const n = Math.min(data.length, H2_PREFACE.length);
    if (!data.subarray(0, n).equals(H2_PREFACE.subarray(0, n))) settle(false);
    else if (data.length >= H2_PREFACE.length) settle(true);
  };
  const onClose = () => {
    done = true;
    clearTimeout(timer);
    socket.off('readable', onReadable);
    socket.off('end', onEnd);
  };
  // Only a prefix of the preface came before the client half-closed: neither protocol can use it.
  const onEnd = () => {
    onClose();
    socket.destroy();
  };
  const timer = setTimeout(() => settle(false), timeoutMs);
  timer.unref();
  socket.on('readable', onReadable);
  socket.once('end', onEnd);
  socket.once('close', onClose);
  socket.once('error', onClose);
}

/**
 * Also closes the HTTP/2 connections when the server closes or closes all its connections, and drops
 * the sockets still silent before their first byte (`dropWaiting`), which no HTTP server tracks yet.
 */
function closeWith(
  server: HttpServer,
  acceptor: H2Acceptor,
  dropWaiting: () => void = () => undefined,
): void {
  const close = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    acceptor.close();
    dropWaiting();
    return close(cb);
  };
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    acceptor.close(true);
    dropWaiting();
    closeAll();
  };
}

/**
 * Serves h2c on `server`'s cleartext port: a connection opening with the HTTP/2 preface goes to an
 * internal HTTP/2 server, anything else to `server` as before. Call before the server listens.
 */
export function acceptH2c(server: HttpServer, onStream: StreamHandler, options: H2Options = {}): H2Acceptor {
  const acceptor = createAcceptor(onStream, options);
  const http1 = takeNodeListener(server, 'connection');
  const prefaceMs = options.prefaceTimeoutMs ?? (server.headersTimeout || 60_000);
  const waiting = new Set<Socket>();
  server.prependListener('connection', (socket: Socket) => {
    if (socket.destroyed) return;
    waiting.add(socket);
    socket.once('close', () => waiting.delete(socket));
    sniff(socket, prefaceMs, (h2) => {
      waiting.delete(socket);
      if (socket.destroyed) return;
      if (h2) acceptor.h2.emit('connection', socket);
      else http1.call(server, socket);
    });
  });
  closeWith(server, acceptor, () => {
    for (const socket of waiting) socket.destroy();
    waiting.clear();
  });
  return acceptor;
}

/**
 * Serves h2 on `server`'s TLS port: ALPN answers with selectAlpn (replacing the server's fixed
 * `http/1.1`), and a socket that settled on h2 goes to an internal HTTP/2 server. Call before the
 * server listens.
 */
export function acceptH2OverTls(
  server: HttpsServer,
  onStream: StreamHandler,
  options: H2Options = {},
): H2Acceptor {
  const acceptor = createAcceptor(onStream, options);
  const tlsServer = server as unknown as {
    ALPNProtocols: unknown;
    ALPNCallback: (arg: { servername: string; protocols: string[] }) => string | undefined;
  };
  tlsServer.ALPNProtocols = undefined;
  tlsServer.ALPNCallback = ({ protocols }) => selectAlpn(protocols);
  const http1 = takeNodeListener(server, 'secureConnection');
  server.prependListener('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol === 'h2') acceptor.h2.emit('connection', socket);
    else http1.call(server, socket);
  });
  closeWith(server, acceptor);
  return acceptor;
}
