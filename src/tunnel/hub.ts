/**
 * The server side of the local tunnel (SPEC §7): the WebSocket connections of `mockingbird tunnel`
 * clients, by endpoint, and the forwarding of an endpoint's unmatched requests to them. Several
 * clients of one endpoint share its requests in turn (round robin), each answering at most
 * TUNNEL_MAX_CONCURRENT at once. A request is answered
 *
 *   - with the local service's status and headers as soon as they arrive, its body streamed after
 *     them (slowed down with pause/resume to what the HTTP client reads);
 *   - 504 when the local service has not started answering within TUNNEL_TIMEOUT;
 *   - 502 `Failed to connect to host (refused)` when the local port refused the connection;
 *   - 502 at once when the client goes away before answering (cut, when it goes away mid-body).
 *
 * A tunnel client is untrusted: every frame is checked (protocol.ts), frames are capped in size, a
 * response body the HTTP client does not read is buffered up to a bound and then cut, and a client
 * that stops answering pings is dropped.
 */
import type { IncomingMessage } from 'node:http';
import { Readable, type Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../events/index.js';
import type { Answer, CapturedRequest } from '../http/index.js';
import { answerHeaders, requestHead } from './headers.js';
import { Peer, textAnswer, type Pending, type TunnelClientInfo } from './peer.js';
import {
  MAX_FRAME,
  parseClientFrame,
  PROTOCOL_VERSION,
  readBodyFrame,
  type ClientFrame,
  type ErrorFrame,
  type RequestHead,
} from './protocol.js';

export type { TunnelClientInfo } from './peer.js';

/** Response body bytes held for an HTTP client that does not read, past which the answer is cut. */
export const MAX_BUFFERED = 4 * 1024 * 1024;
/** What a 502 for a refused local port says (the hosted service's wording, SPEC §7). */
export const REFUSED_TEXT = 'Failed to connect to host (refused)';

export interface TunnelHubOptions {
  timeoutMs: number;
  maxConcurrent: number;
  maxClients: number;
  pingIntervalMs: number;
  events: EventBus;
  log: FastifyBaseLogger;
}

/**
 * The tunnels of the other instances (tunnel/cluster.ts): where a request goes when no client of its
 * endpoint is connected here, and who hears when this instance's first client of an endpoint connects
 * or its last one leaves.
 */
export interface RemoteTunnels {
  /** Another instance's client's answer; undefined (or a promise of it) when there is none to ask. */
  forward(endpoint: string, request: CapturedRequest): Promise<Answer | undefined> | undefined;
  clientsChanged(endpoint: string, clients: number): void;
}

export class TunnelHub {
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME + 4,
    perMessageDeflate: false,
    clientTracking: false,
  });
  private readonly peers = new Map<string, Peer[]>();
  private readonly turn = new Map<string, number>();
  private readonly pinger: NodeJS.Timeout;
  private closing: Promise<void> | undefined;
  private onIdle: (() => void) | undefined;
  private remote: RemoteTunnels | undefined;

  constructor(private readonly opts: TunnelHubOptions) {
    this.pinger = setInterval(() => this.ping(), opts.pingIntervalMs);
    this.pinger.unref();
  }

  /** Hands requests this instance has no client for to `remote`, and tells it of clients coming and going. */
  reachOthers(remote: RemoteTunnels): void {
    this.remote = remote;
  }

  /** Clients connected to `endpoint`. */
  clients(endpoint: string): number {
    return this.peers.get(endpoint)?.length ?? 0;
  }

  /** Whether one more client of `endpoint` may connect. */
  hasRoom(endpoint: string): boolean {
    return this.closing === undefined && this.clients(endpoint) < this.opts.maxClients;
  }

  /** Completes the WebSocket handshake on an authenticated, authorised upgrade request. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, info: TunnelClientInfo): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.attach(ws, info));
  }

  private attach(ws: WebSocket, info: TunnelClientInfo): void {
    const peer = new Peer(ws, info);
    const list = this.peers.get(info.endpoint) ?? [];
    list.push(peer);
    this.peers.set(info.endpoint, list);
    peer.send({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      endpoint: info.endpoint,
      localTunnel: info.localTunnel,
      pingInterval: this.opts.pingIntervalMs,
      maxConcurrent: this.opts.maxConcurrent,
    });
    ws.on('pong', () => (peer.alive = true));
    ws.on('message', (data: RawData, isBinary: boolean) => this.received(peer, data as Buffer, isBinary));
    ws.on('error', (err) =>
      this.opts.log.info({ endpoint: info.endpoint, err: err.message }, 'tunnel error'),
    );
    ws.on('close', (code: number) => this.detach(peer, code));
    this.opts.log.info({ endpoint: info.endpoint, client: peer.id, ip: info.ip }, 'tunnel connected');
    this.remote?.clientsChanged(info.endpoint, list.length);
    this.opts.events.publish({
      endpoint: info.endpoint,
      name: 'tunnel.connected',
      data: { clientId: peer.id, ip: info.ip, clients: list.length },
    });
  }

  private detach(peer: Peer, code: number): void {
    const { endpoint } = peer.info;
    const list = (this.peers.get(endpoint) ?? []).filter((p) => p !== peer);
    if (list.length > 0) this.peers.set(endpoint, list);
    else this.peers.delete(endpoint);
    for (const [id, p] of peer.pending) {
      this.settle(peer, id);
      if (p.stream) p.stream.destroy(new Error('the tunnel client disconnected'));
      else p.resolve(textAnswer(502, 'The tunnel client disconnected before the local service answered.'));
    }
    this.opts.log.info({ endpoint, client: peer.id, code }, 'tunnel disconnected');
    this.remote?.clientsChanged(endpoint, list.length);
    this.opts.events.publish({
      endpoint,
      name: 'tunnel.disconnected',
      data: { clientId: peer.id, ip: peer.info.ip, clients: list.length },
    });
    this.checkIdle();
  }

  /** Drops a client that did not answer the previous ping; pings the others. */
  private ping(): void {
    for (const list of this.peers.values())
      for (const peer of list) {
        if (!peer.alive) {
          this.opts.log.info(
            { endpoint: peer.info.endpoint, client: peer.id },
            'tunnel client missed a ping',
          );
          peer.ws.terminate();
          continue;
        }
        peer.alive = false;
        if (peer.ws.readyState === WebSocket.OPEN) peer.ws.ping();
      }
  }

  /**
   * Sends `request` to the next client of `endpoint` with room for it; with none connected here, to
   * another instance's (RemoteTunnels). Undefined, or a promise of undefined, when no client anywhere
   * takes it (the fallback chain goes on); a 503 when every client here is busy.
   */
  forward(endpoint: string, request: CapturedRequest): Promise<Answer | undefined> | undefined {
    const peer = this.pick(endpoint);
    if (peer === undefined) return this.remote?.forward(endpoint, request);
    if (peer === 'busy') return Promise.resolve(this.busy(endpoint));
    return this.send(peer, requestHead(request), request.rawBody);
  }

  /**
   * Sends a request hopped from another instance to a client of `endpoint` connected here, never
   * further (at most one hop): its head as the other instance captured it, its body streamed as it
   * arrives. Undefined when no client of the endpoint is connected here.
   */
  forwardHop(endpoint: string, head: RequestHead, body: Readable): Promise<Answer> | undefined {
    const peer = this.pick(endpoint);
    if (peer === undefined || this.closing !== undefined) return undefined;
    if (peer === 'busy') return Promise.resolve(this.busy(endpoint));
    return this.send(peer, head, body);
  }

  /** The next client of `endpoint` with room for one more request (round robin). */
  private pick(endpoint: string): Peer | 'busy' | undefined {
    const list = this.peers.get(endpoint);
    if (!list || list.length === 0) return undefined;
    const start = this.turn.get(endpoint) ?? 0;
    for (let i = 0; i < list.length; i++) {
      const candidate = list[(start + i) % list.length]!;
      if (candidate.pending.size < this.opts.maxConcurrent) {
        this.turn.set(endpoint, (start + i + 1) % list.length);
        return candidate;
      }
    }
    return 'busy';
  }

  private busy(endpoint: string): Answer {
    return textAnswer(
      503,
      `Every tunnel client of "${endpoint}" is answering as many requests as it may; retry shortly.`,
    );
  }

  private send(peer: Peer, head: RequestHead, body: Buffer | Readable): Promise<Answer> {
    const id = peer.nextId();
    return new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => {
        this.settle(peer, id);
        peer.send({ type: 'cancel', id });
        resolve(
          textAnswer(
            504,
            `The local service behind the tunnel did not answer within ${this.opts.timeoutMs / 1000} s.`,
          ),
        );
      }, this.opts.timeoutMs);
      const p: Pending = { resolve, timer, paused: false };
      peer.pending.set(id, p);
      peer.send({ type: 'request', id, ...head });
      peer.sendBody(id, p, body, (err) => this.abandon(peer, id, err));
    });
  }

  /** Gives request `id` up (its hopped body broke off): the client is told, the answer cut or 502. */
  private abandon(peer: Peer, id: number, err: Error): void {
    const p = peer.pending.get(id);
    if (!p) return;
    this.settle(peer, id);
    peer.send({ type: 'cancel', id });
    if (p.stream) p.stream.destroy(err);
    else p.resolve(textAnswer(502, 'The request body broke off before it reached the tunnel client.'));
  }

  /** Forgets request `id` of `peer` (answered, failed or given up). */
  private settle(peer: Peer, id: number): void {
    const p = peer.pending.get(id);
    if (!p) return;
    clearTimeout(p.timer);
    peer.pending.delete(id);
    p.drain?.();
    this.checkIdle();
  }

  private received(peer: Peer, data: Buffer, isBinary: boolean): void {
    if (isBinary) {
      const frame = readBodyFrame(data);
      if (!frame) return this.violation(peer, 'a body frame needs a request id');
      const p = peer.pending.get(frame.id);
      if (!p) return; // a late chunk of a request given up
      if (!p.stream) return this.violation(peer, 'a body frame came before its response frame');
      this.push(peer, frame.id, p, frame.chunk);
      return;
    }
    const frame = parseClientFrame(data.toString('utf8'));
    if (typeof frame === 'string') return this.violation(peer, frame);
    const p = peer.pending.get(frame.id);
    if (!p) return;
    this.control(peer, p, frame);
  }

  private control(peer: Peer, p: Pending, frame: ClientFrame): void {
    const { id } = frame;
    if (frame.type === 'response') {
      if (p.stream) return this.violation(peer, 'a second response frame for one request');
      clearTimeout(p.timer);
      p.timer = undefined;
      p.stream = new Readable({
        read: () => {
          if (!p.paused) return;
          p.paused = false;
          peer.send({ type: 'resume', id });
        },
        destroy: (err, cb) => {
          // The HTTP client went away (or the answer was cut): the local request is no longer wanted.
          if (peer.pending.has(id)) {
            this.settle(peer, id);
            peer.send({ type: 'cancel', id });
          }
          cb(err);
        },
      });
      p.resolve({ status: frame.status, headers: answerHeaders(frame.headers), body: '', stream: p.stream });
    } else if (frame.type === 'end') {
      if (!p.stream) return this.violation(peer, 'an end frame came before its response frame');
      this.settle(peer, id);
      p.stream.push(null);
    } else {
      this.settle(peer, id);
      this.failed(p, frame);
    }
  }

  private failed(p: Pending, frame: ErrorFrame): void {
    if (p.stream) {
      p.stream.destroy(new Error(`the local service failed mid-answer (${frame.message || frame.reason})`));
      return;
    }
    if (frame.reason === 'refused') p.resolve(textAnswer(502, REFUSED_TEXT));
    else if (frame.reason === 'timeout')
      p.resolve(textAnswer(504, 'The local service behind the tunnel did not answer in time.'));
    else {
      const why = frame.message.replace(/[^\x20-\x7e]/g, '').slice(0, 200) || 'failed';
      p.resolve(textAnswer(502, `Failed to connect to host (${why})`));
    }
  }

  private push(peer: Peer, id: number, p: Pending, chunk: Buffer): void {
    const stream = p.stream!;
    if (stream.destroyed) return;
    if (stream.readableLength + chunk.length > MAX_BUFFERED) {
      stream.destroy(
        new Error(`the tunnel client sent more than ${MAX_BUFFERED} bytes the HTTP client had not read`),
      );
      return;
    }
    if (!stream.push(chunk) && !p.paused) {
      p.paused = true;
      peer.send({ type: 'pause', id });
    }
  }

  /** A frame that breaks the protocol: the client is dropped (its requests answered 502). */
  private violation(peer: Peer, what: string): void {
    this.opts.log.warn({ endpoint: peer.info.endpoint, client: peer.id, what }, 'tunnel protocol violation');
    peer.ws.close(1002, what.slice(0, 120));
    setTimeout(() => peer.ws.terminate(), 1000).unref();
  }

  private checkIdle(): void {
    if (!this.onIdle) return;
    for (const list of this.peers.values()) for (const p of list) if (p.pending.size > 0) return;
    this.onIdle();
  }

  /**
   * Closes every tunnel once the requests they are answering are done, or after `graceMs`: the
   * server's close waits for these sockets. Resolves when they are closed.
   */
  close(graceMs: number): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.pinger);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.onIdle = () => {
          clearTimeout(timer);
          resolve();
        };
        this.checkIdle();
      });
      const all = [...this.peers.values()].flat();
      await Promise.all(
        all.map(
          (peer) =>
            new Promise<void>((resolve) => {
              if (peer.ws.readyState === WebSocket.CLOSED) return resolve();
              peer.ws.once('close', () => resolve());
              peer.ws.close(1001, 'server shutting down');
              setTimeout(() => peer.ws.terminate(), 1000).unref();
            }),
        ),
      );
      this.wss.close();
    })();
    return this.closing;
  }
}
