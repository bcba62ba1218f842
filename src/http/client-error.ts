/**
 * Requests Node's HTTP parser refuses before any route sees them (headers over its size limit, a
 * request line that is not HTTP, a client too slow to send its headers): answered with the error
 * body of SPEC §4, as every other error, instead of Fastify's own shape. The connection is closed.
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERRORS, errorBody, type ErrorCode } from '../errors.js';
import { JSON_TYPE } from './answer.js';
import { OPEN_ORIGIN } from './cors.js';

function classify(code: string | undefined): { code: ErrorCode; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return {
      code: 'header_too_large',
      message: `The request line and headers are larger than ${maxHeaderSize} bytes.`,
    };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { code: 'request_timeout', message: 'The request was not received in time.' };
  return { code: 'validation_error', message: 'The request is not valid HTTP/1.1.' };
}

export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, message } = classify(err.code);
  const status = ERRORS[code].status;
  const body = JSON.stringify(errorBody(code, message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: ${JSON_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Access-Control-Allow-Origin: ${OPEN_ORIGIN['access-control-allow-origin']}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}
