/**
 * Bounds on connections (SPEC §12): at most MAX_CONNECTIONS_PER_IP open sockets per client address
 * (one client holding a thousand slow sockets exhausted the process's file descriptors), and the
 * server's request, header and keep-alive timeouts as Node options. The cap counts socket peers: behind
 * a reverse proxy every client shares the proxy's address, so set it high there.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type ServerOptions as HttpsServerOptions } from 'node:https';
import type { Socket } from 'node:net';
import { bareAddress } from './capture.js';

export interface ServerTimeouts {
  /** Whole request (headers and body) must arrive within this, else 408 (ms). */
  requestTimeout: number;
  /** Headers must arrive within this (ms); at most `requestTimeout`. */
  headersTimeout: number;
  /** An idle keep-alive connection is closed after this (ms). */
  keepAliveTimeout: number;
}

/** Node server options for the timeouts; they are checked every second (Node's default is 30 s). */
export function serverTimeoutOptions(t: ServerTimeouts) {
  return {
    requestTimeout: t.requestTimeout,
    headersTimeout: Math.min(t.headersTimeout, t.requestTimeout),
    keepAliveTimeout: t.keepAliveTimeout,
    connectionsCheckingInterval: Math.min(1000, t.headersTimeout),
  };
}

/** Closes, at once, a connection beyond `max` open ones from the same address. */
export function capConnectionsPerIp(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const ip = bareAddress(socket.remoteAddress ?? '');
    const n = (open.get(ip) ?? 0) + 1;
    if (n > max) {
      socket.destroy();
      return;
    }
    open.set(ip, n);
    socket.once('close', () => {
      const left = (open.get(ip) ?? 1) - 1;
      if (left <= 0) open.delete(ip);
      else open.set(ip, left);
    });
  });
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The Node server for Fastify's `serverFactory`, built as Fastify builds its own (HTTP/1, TLS when
 * `tls` is given, the timeouts applied), whose requests go to `handler`: the one listener, which
 * sends endpoint requests to the endpoint plane's door and the rest to Fastify's routing.
 */
export function createNodeServer(
  handler: Handler,
  timeouts: ReturnType<typeof serverTimeoutOptions>,
  tls: HttpsServerOptions | null,
): Server {
  const server = tls ? createHttpsServer(tls, handler) : createHttpServer(timeouts, handler);
  server.keepAliveTimeout = timeouts.keepAliveTimeout;
  server.requestTimeout = timeouts.requestTimeout;
  server.setTimeout(0); // Fastify's connectionTimeout default: none
  return server;
}

/**
 * Resets a response's connection (RST) rather than ending it: a polite end would wait behind the bytes
 * a reader left unread and keep them in the process and the kernel. A socket that cannot be reset
 * (TLS) is destroyed.
 */
export function resetConnection(res: ServerResponse): void {
  const socket = res.socket;
  if (socket && !socket.destroyed) {
    try {
      socket.resetAndDestroy();
      return;
    } catch {
      /* not a plain TCP handle (TLS) */
    }
  }
  res.destroy();
}
