/**
 * Faults written at the socket level (issue 37), under Node's response, which is never used for them:
 *
 *   connection_reset        → an RST (SO_LINGER 0); over TLS, where Node cannot reset, a plain close
 *   empty_response          → a FIN before any byte
 *   malformed_chunk         → the answer's status line and headers with `Transfer-Encoding: chunked`,
 *                             then a chunk-size line that is not hex, then a FIN
 *   random_data_then_close  → FAULT_RANDOM_BYTES random bytes (not HTTP), then a FIN
 *   timeout                 → nothing: the socket is held by one timer until the client closes it or
 *                             `timeoutMs` (FAULT_TIMEOUT_MAX) passes. It is not paused: a paused
 *                             socket would not see the client's FIN, and a client that gives up must
 *                             free it at once (Node's parser reads on, as for any pending answer)
 *
 * Invariants: a fault costs at most FAULT_HEAD_MAX + FAULT_RANDOM_BYTES bytes written, and at most
 * `timeoutMs` of one socket and one timer, no CPU while held; every held socket is released by
 * `FaultHolds.close()` (the server closing). The number of sockets is bounded by MAX_CONNECTIONS_PER_IP.
 */
import { randomBytes } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Answer, Fault } from '../http/index.js';

/** Bytes `random_data_then_close` sends. */
export const FAULT_RANDOM_BYTES = 1024;
/** Most bytes of a `malformed_chunk` head (the answer's headers are left out past it). */
export const FAULT_HEAD_MAX = 16_384;
/** What `malformed_chunk` sends after the head: a chunk-size line that is not hexadecimal. */
export const MALFORMED_CHUNK = 'zz-not-a-chunk-size\r\nmalformed chunk\r\n';

const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** The sockets held by `timeout` faults, each with its timer. */
export class FaultHolds {
  readonly #held = new Map<Socket, NodeJS.Timeout>();

  /** Holds `socket`, sending nothing, until it closes or `ms` pass (then the server closes it). */
  hold(socket: Socket, ms: number): void {
    const timer = setTimeout(() => socket.destroy(), ms);
    this.#held.set(socket, timer);
    socket.once('close', () => {
      clearTimeout(timer);
      this.#held.delete(socket);
    });
  }

  /** Sockets held now. */
  get size(): number {
    return this.#held.size;
  }

  /** Closes every held socket (the server is closing: a held one would never answer). */
  close(): void {
    for (const socket of [...this.#held.keys()]) socket.destroy();
  }
}

/** The status line and headers `malformed_chunk` sends: the answer's, with chunked framing. */
export function malformedHead(a: Answer): string {
  let head = `HTTP/1.1 ${a.status} ${STATUS_CODES[a.status] ?? 'Unknown'}\r\n`;
  for (const [name, value] of Object.entries(a.headers)) {
    if (FRAMING.has(name.toLowerCase())) continue;
    for (const v of typeof value === 'string' ? [value] : value) {
      const line = `${name}: ${v}\r\n`;
      // Values were checked when stored or parsed from an upstream; a line break would still split the head.
      if (/[\r\n]/.test(line.slice(0, -2)) || head.length + line.length > FAULT_HEAD_MAX) continue;
      head += line;
    }
  }
  return `${head}transfer-encoding: chunked\r\n\r\n`;
}

/** Sends a RST where Node can (a TCP socket), else closes. */
function reset(socket: Socket): void {
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

/**
 * Writes `fault` on the socket under `res` instead of the answer `a` (the history has recorded it).
 * A response without a socket (the client is gone) is destroyed.
 */
export function writeFault(
  res: ServerResponse,
  a: Answer,
  fault: Fault,
  holds: FaultHolds,
  timeoutMs: number,
): void {
  const socket = res.socket;
  if (!socket || socket.destroyed) {
    res.destroy();
    return;
  }
  switch (fault) {
    case 'connection_reset':
      return reset(socket);
    case 'empty_response':
      socket.destroySoon();
      return;
    case 'malformed_chunk':
      socket.write(malformedHead(a) + MALFORMED_CHUNK);
      socket.destroySoon();
      return;
    case 'random_data_then_close':
      socket.write(randomBytes(FAULT_RANDOM_BYTES));
      socket.destroySoon();
      return;
    case 'timeout':
      return holds.hold(socket, timeoutMs);
  }
}
