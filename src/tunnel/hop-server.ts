/**
 * The receiving side of a hop (hop-wire.ts): `POST /_mockingbird/hop/<endpoint>` from another instance,
 * handed to a tunnel client connected here and never further: a hop is the request's only one
 * (TunnelHub.forwardHop asks no other instance). The request body streams from the hop into the
 * tunnel's frames and the answer back into the hop's body, neither held whole.
 *
 * Without the hop key (or with another method) the answer is the 404 any unknown route gets: the path
 * says nothing to whoever is not an instance. With no client of the endpoint here (it left, this
 * instance is closing) the answer is `{ "none": true }`, and the sending instance goes on down its
 * fallback chain. Nothing is recorded here: the instance the request arrived at records it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { errorBody } from '../errors.js';
import { JSON_TYPE, type Answer } from '../http/index.js';
import { parseRequestHead } from './protocol.js';
import type { TunnelHub } from './hub.js';
import { HOP_KEY_HEADER, HOP_PREFIX, headFrame, isHopKey, readHead, type HopKeys } from './hop-wire.js';

export interface HopServerOptions {
  hub: Pick<TunnelHub, 'forwardHop'>;
  keys: HopKeys;
  /** False once this instance is closing: hops are then answered `{ "none": true }`. */
  accepting(): boolean;
  /** Told of each hop refused for its key or method. */
  refused(): void;
  log: FastifyBaseLogger;
}

/** Whether a request is for the hop path (HOP_PREFIX): the listener hands it to the hop server. */
export function isHop(req: IncomingMessage): boolean {
  return req.url?.startsWith(HOP_PREFIX) === true;
}

function writeJson(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function writeHead(res: ServerResponse, head: unknown): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
  res.write(headFrame(head));
}

/** The answer's header lines, a list value as several lines. */
function headerLines(a: Answer): [string, string][] {
  const lines: [string, string][] = [];
  for (const [name, value] of Object.entries(a.headers))
    if (typeof value === 'string') lines.push([name, value]);
    else for (const v of value) lines.push([name, v]);
  return lines;
}

export function hopServer(o: HopServerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const invalid = (res: ServerResponse, why: string): void =>
    writeJson(res, 400, JSON.stringify(errorBody('validation_error', `Not a valid hop: ${why}.`)));

  const serve = async (req: IncomingMessage, res: ServerResponse, endpoint: string): Promise<void> => {
    let raw: Record<string, unknown>;
    try {
      raw = await readHead(req);
    } catch (err) {
      return invalid(res, (err as Error).message);
    }
    const head = parseRequestHead(raw);
    if (typeof head === 'string') return invalid(res, head);
    const pending = o.accepting() ? o.hub.forwardHop(endpoint, head, req) : undefined;
    if (pending === undefined) {
      writeHead(res, { none: true });
      res.end();
      return;
    }
    const answer = await pending;
    if (res.destroyed) {
      answer.stream?.destroy();
      return;
    }
    writeHead(res, { status: answer.status, headers: headerLines(answer) });
    if (!answer.stream) {
      res.end(answer.body);
      return;
    }
    pipeline(answer.stream, res, (err) => {
      if (err) o.log.info({ endpoint, reason: err.message }, 'tunnel hop answer cut');
    });
  };

  return (req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    let endpoint: string | undefined;
    try {
      endpoint = decodeURIComponent(path.slice(HOP_PREFIX.length));
    } catch {
      endpoint = undefined;
    }
    if (req.method !== 'POST' || !isHopKey(o.keys, req.headers[HOP_KEY_HEADER]) || !endpoint) {
      o.refused();
      writeJson(res, 404, JSON.stringify(errorBody('not_found', `No route for ${req.method} ${path}.`)));
      return;
    }
    serve(req, res, endpoint).catch((err: Error) => {
      o.log.warn({ endpoint, err: err.message }, 'tunnel hop failed');
      if (!res.headersSent) writeJson(res, 500, JSON.stringify(errorBody('internal_error')));
      else res.destroy();
    });
  };
}
