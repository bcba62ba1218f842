/**
 * HTTP upgrades (a WebSocket handshake) through Fastify's router. Node hands a request carrying
 * `Upgrade` to the server's 'upgrade' event instead of the request handler once anything listens to
 * it; here every such request is routed like any other, with a response bound to its socket, so that
 * the API's hooks (authentication, failed-key counting) and the one error handler answer it as they
 * answer any request. A route that accepts the upgrade finds the socket with `upgradeOf` and hijacks
 * the reply; any other route answers as usual and the connection is closed after the answer.
 *
 * Node stops parsing at the end of an upgrade request's headers, so a body after them never reaches
 * the request stream: an upgrade request that declares a body and is not accepted is answered 400 at
 * once instead of being left waiting for bytes that will not come (browsers and WebSocket clients
 * send none).
 */
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from '../errors.js';
import { JSON_TYPE } from './answer.js';

export interface Upgrade {
  socket: Duplex;
  /** Bytes the client sent after the headers (the first frames of the new protocol). */
  head: Buffer;
  /** Detaches the socket from the HTTP response, for the route that speaks the new protocol on it. */
  take(): void;
}

const upgrades = new WeakMap<IncomingMessage, Upgrade>();

/** The socket of an upgrade request, for a route that takes it over; undefined for a plain request. */
export function upgradeOf(request: IncomingMessage): Upgrade | undefined {
  return upgrades.get(request);
}

function declaresBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (len !== undefined && len !== '0');
}

/**
 * Routes every upgrade request of `server` through `route` (Fastify's `routing`). `accepts` names the
 * paths that take an upgrade; any other upgrade request with a body is refused there and then.
 */
export function routeUpgrades(
  server: Server,
  route: (req: IncomingMessage, res: ServerResponse) => void,
  accepts: (req: IncomingMessage) => boolean,
): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (!accepts(req) && declaresBody(req)) {
      const body = JSON.stringify(
        errorBody('validation_error', 'A request asking for a protocol upgrade here may not carry a body.'),
      );
      socket.end(
        'HTTP/1.1 400 Bad Request\r\n' +
          `Content-Type: ${JSON_TYPE}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
      );
      return;
    }
    const res = new ServerResponse(req);
    upgrades.set(req, { socket, head, take: () => res.detachSocket(socket as never) });
    // The socket left Node's HTTP parser: one answer, then the connection closes.
    res.shouldKeepAlive = false;
    res.assignSocket(socket as never);
    res.on('finish', () => {
      if (!socket.destroyed) socket.end();
    });
    try {
      route(req, res);
    } catch {
      socket.destroy();
    }
  });
}
