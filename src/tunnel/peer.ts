/**
 * One connected tunnel client as the hub sees it: its WebSocket, the requests it is answering, and
 * the sending of a request's body to it (hub.ts owns the protocol's decisions).
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { WebSocket } from 'ws';
import { TEXT_TYPE, type Answer } from '../http/index.js';
import { bodyFrame, chunks, type ServerFrame } from './protocol.js';

/** Body bytes handed to the WebSocket and not yet written, past which a streamed request body is paused. */
const WIRE_HIGH_WATER = 1024 * 1024;

/** What a newly accepted client is told and known by. */
export interface TunnelClientInfo {
  endpoint: string;
  ip: string;
  localTunnel: boolean;
}

export interface Pending {
  resolve(a: Answer): void;
  timer: NodeJS.Timeout | undefined;
  /** Set once the response frame arrived. */
  stream?: Readable;
  paused: boolean;
  /** Stops sending a streamed request body (the rest is read and dropped). */
  drain?: () => void;
}

export function textAnswer(status: number, text: string): Answer {
  return { status, headers: { 'content-type': TEXT_TYPE }, body: text + '\n' };
}

export class Peer {
  readonly id = randomUUID();
  readonly pending = new Map<number, Pending>();
  private lastId = 0;
  alive = true;

  constructor(
    readonly ws: WebSocket,
    readonly info: TunnelClientInfo,
  ) {}

  nextId(): number {
    do this.lastId = this.lastId >= 0xffffffff ? 1 : this.lastId + 1;
    while (this.pending.has(this.lastId));
    return this.lastId;
  }

  /** Sends a frame; `written` is called once it has left (at once when the socket is not open). */
  send(frame: ServerFrame | Buffer, written?: () => void): void {
    if (this.ws.readyState !== WebSocket.OPEN) {
      written?.();
      return;
    }
    this.ws.send(Buffer.isBuffer(frame) ? frame : JSON.stringify(frame), written && (() => written()));
  }

  /**
   * Sends request `id`'s body, then its end: a captured body at once; a stream (a request hopped from
   * another instance) as it arrives, paused while more than WIRE_HIGH_WATER bytes wait to be written, so
   * that a large body is never held whole. `failed` is told when the stream breaks before its end.
   */
  sendBody(id: number, p: Pending, body: Buffer | Readable, failed: (err: Error) => void): void {
    if (Buffer.isBuffer(body)) {
      for (const chunk of chunks(body)) this.send(bodyFrame(id, chunk));
      this.send({ type: 'end', id });
      return;
    }
    // The stream may have ended before it got here: a hop whose request line, headers and body came in
    // one read is parsed whole at once, and readHead (hop-wire.ts) took its last bytes, so 'end' was
    // emitted before anyone listened for it. Its body is then empty: only the end is left to send.
    if (body.readableEnded) {
      this.send({ type: 'end', id });
      return;
    }
    // Likewise broken off before it got here: its 'error' and 'close' are gone too.
    if (body.destroyed) {
      failed(body.errored ?? new Error('the request body broke off'));
      return;
    }
    let unwritten = 0;
    let dropping = false;
    p.drain = () => {
      dropping = true;
      body.resume();
    };
    body.on('data', (data: Buffer) => {
      if (dropping) return;
      for (const chunk of chunks(data)) {
        const frame = bodyFrame(id, chunk);
        unwritten += frame.length;
        this.send(frame, () => {
          unwritten -= frame.length;
          if (unwritten < WIRE_HIGH_WATER && !dropping && body.isPaused()) body.resume();
        });
      }
      if (unwritten >= WIRE_HIGH_WATER) body.pause();
    });
    body.on('end', () => {
      if (!dropping) this.send({ type: 'end', id });
    });
    body.on('error', (err) => {
      if (!dropping) failed(err);
    });
  }
}
