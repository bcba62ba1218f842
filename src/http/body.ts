/**
 * Reading a request body off the socket with a byte limit counted on the wire (chunked bodies too).
 * A body over the limit is never buffered beyond limit + one chunk.
 */
import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too_large' | 'aborted' };

const EMPTY = Buffer.alloc(0);

/**
 * HTTP/1.1 framing: a request without Content-Length or Transfer-Encoding has no body. Checking
 * this first spares every GET the cost of a stream read (about a sixth of an echo's CPU).
 */
export function mayHaveBody(req: IncomingMessage): boolean {
  const cl = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (cl !== undefined && cl !== '0');
}

/** Reads the whole body of `req`, refusing it as soon as more than `limit` bytes have arrived. */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.resolve({ ok: false, reason: 'too_large' });
  }
  if (req.readableEnded) return Promise.resolve({ ok: true, body: EMPTY });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: BodyResult): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      resolve(r);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        finish({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void =>
      finish({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    const onError = (): void => finish({ ok: false, reason: 'aborted' });
    const onClose = (): void => {
      if (!req.readableEnded) finish({ ok: false, reason: 'aborted' });
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * After a refused body: read and discard what the client is still sending, so that a client that
 * reads the answer only after writing its whole body still gets it. Closing at once would reset the
 * connection under the client's writes and lose the answer (lingering close, as HTTP servers do).
 * The connection is destroyed when more than `maxBytes` arrive or the body is not over after `maxMs`;
 * a body that ends within both leaves the connection usable for the next request.
 */
export function drainAndClose(req: IncomingMessage, maxBytes = 16 * 1024 * 1024, maxMs = 5000): void {
  if (req.readableEnded) return;
  let seen = 0;
  // req.destroy() takes the socket down with an unfinished request (and also works under inject()).
  const timer = setTimeout(() => req.destroy(), maxMs);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) req.destroy();
  });
  req.on('end', () => clearTimeout(timer));
  req.on('close', () => clearTimeout(timer));
  req.resume();
}
