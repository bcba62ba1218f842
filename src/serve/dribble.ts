/**
 * The dribble (issue 37, `chunked: { chunks, totalDuration }`): the head at once, then the body in
 * `chunks` pieces of near-equal size, piece k (from 1) written k · totalDuration / chunks ms after the
 * head, the last one at totalDuration. No Content-Length, so an HTTP/1.1 client sees each piece as one
 * chunk of `Transfer-Encoding: chunked`.
 *
 * Invariants: one timer at a time, cleared when the response closes (a client that leaves stops the
 * dribble); times are counted from the head, so the pieces do not drift late; a body shorter than
 * `chunks` bytes is sent a byte a piece (an empty chunk would end the body); an answer without a
 * body (HEAD, 1xx, 204, 304, an empty body) is written whole.
 */
import type { ServerResponse } from 'node:http';
import type { Answer, Dribble } from '../http/index.js';
import { bodiless, typedHeaders, writeWhole } from './write.js';

/** Where each of `n` pieces of a `length`-byte body ends (the last at `length`). */
export function pieceEnds(length: number, n: number): number[] {
  return Array.from({ length: n }, (_, k) => Math.round(((k + 1) * length) / n));
}

/** Writes `a` on `res`, its body dribbled as `d` says. Throws as `writeWhole` does. */
export function writeDribble(res: ServerResponse, method: string | undefined, a: Answer, d: Dribble): void {
  const body = typeof a.body === 'string' ? Buffer.from(a.body, 'utf8') : a.body;
  if (method === 'HEAD' || bodiless(a.status) || a.status === 304 || body.length === 0)
    return writeWhole(res, method, a);
  const headers = typedHeaders(a);
  delete headers['content-length'];
  res.writeHead(a.status, headers as Record<string, string | string[]>);
  a.onWrite?.(res);
  res.flushHeaders();
  const n = Math.min(d.chunks, body.length);
  const ends = pieceEnds(body.length, n);
  const started = performance.now();
  let k = 0;
  let timer: NodeJS.Timeout | undefined;
  const next = (): void => {
    timer = undefined;
    const piece = body.subarray(k === 0 ? 0 : ends[k - 1], ends[k]);
    k++;
    if (k === n) {
      res.end(piece);
      return;
    }
    res.write(piece);
    timer = setTimeout(next, Math.max(0, started + ((k + 1) * d.totalMs) / n - performance.now()));
  };
  res.once('close', () => clearTimeout(timer));
  timer = setTimeout(next, d.totalMs / n);
}
