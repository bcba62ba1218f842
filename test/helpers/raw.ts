/** Raw HTTP over net.connect, for what only a socket shows (duplicate headers, chunking, limits). */
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  raw: string;
}

/** Parses the first HTTP/1.1 response in `raw` (content-length bodies only). */
export function parseResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, end).split('\r\n');
  const status = Number(head[0]!.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const len = Number(headers['content-length'] ?? 0);
  const body = Buffer.from(raw.slice(end + 4), 'utf8')
    .subarray(0, len)
    .toString('utf8');
  return { status, headers, body, raw };
}

/**
 * Sends `request` (string or buffers, written in order) and resolves with everything received once
 * a full response with a content-length body has arrived or the socket closes.
 */
export function rawRequest(
  port: number,
  request: string | Buffer | (string | Buffer)[],
  timeoutMs = 10_000,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error('raw request timed out; received: ' + data.slice(0, 200)));
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(parseResponse(data));
    };
    sock.on('data', (c) => {
      data += c.toString('utf8');
      const end = data.indexOf('\r\n\r\n');
      if (end === -1) return;
      const m = /content-length:\s*(\d+)/i.exec(data.slice(0, end));
      const len = m ? Number(m[1]) : 0;
      if (Buffer.byteLength(data.slice(end + 4)) >= len) done();
    });
    sock.on('error', (err) => {
      if (data.includes('\r\n\r\n')) done();
      else {
        clearTimeout(timer);
        reject(err);
      }
    });
    sock.on('close', () => {
      if (data.includes('\r\n\r\n')) done();
    });
    const parts = Array.isArray(request) ? request : [request];
    for (const p of parts) sock.write(p);
  });
}
