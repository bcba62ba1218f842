/**
 * `CONNECT` asks for a tunnel, which Mockingbird does not offer: Node hands it to the server's
 * 'connect' event, and without a listener the socket was closed without a word. It is answered 405
 * with the error body of SPEC §4 and the connection closed.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from '../errors.js';
import { JSON_TYPE } from './answer.js';
import { OPEN_ORIGIN } from './cors.js';

export function refuseConnect(server: Server): void {
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    const body = JSON.stringify(
      errorBody('method_not_allowed', 'CONNECT is not supported: Mockingbird is not a proxy for tunnels.'),
    );
    socket.end(
      'HTTP/1.1 405 Method Not Allowed\r\n' +
        `Content-Type: ${JSON_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Access-Control-Allow-Origin: ${OPEN_ORIGIN['access-control-allow-origin']}\r\n` +
        'Allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE\r\n' +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
