/**
 * Shared helpers of the echo tests: building raw HTTP/1.1 requests byte for byte (for what only a
 * socket shows) and checking that the server still serves a fresh connection after hostile input.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { rawRequest, type RawResponse } from '../helpers/raw.js';

/** The echo document as a loose object, for assertions: it is arbitrary JSON that tests poke into. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Echo = Record<string, any>;

/**
 * A raw request: request line, `Host: localhost` unless a Host is given, the headers in the order
 * given (repeats kept), `Content-Length` when a body is given and no framing header is, then the body.
 */
export function rawHttp(
  method: string,
  path: string,
  headers: [string, string][] = [],
  body?: string | Buffer,
): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`];
  if (!headers.some(([k]) => k.toLowerCase() === 'host')) lines.push('Host: localhost');
  for (const [k, v] of headers) lines.push(`${k}: ${v}`);
  const framed = headers.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k));
  const data = body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(body) ? body : Buffer.from(body);
  if (body !== undefined && !framed) lines.push(`Content-Length: ${data.length}`);
  return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), data]);
}

/** A chunked body: each piece as one chunk, then the last chunk. */
export function chunked(pieces: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [];
  for (const p of pieces) {
    const b = Buffer.isBuffer(p) ? p : Buffer.from(p);
    parts.push(Buffer.from(b.length.toString(16) + '\r\n'), b, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** Sends a raw request and parses the echo document (asserting the 200 and the JSON type). */
export async function rawEcho(
  port: number,
  request: Buffer | string,
): Promise<{ res: RawResponse; doc: Echo }> {
  const res = await rawRequest(port, request);
  assert.equal(res.status, 200, `expected 200, got ${res.status}: ${res.body.slice(0, 300)}`);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  return { res, doc: JSON.parse(res.body) as Echo };
}

/** Asserts that a plain GET on a new connection is still answered normally. */
export async function assertServes(port: number): Promise<void> {
  const res = await rawRequest(port, rawHttp('GET', '/e/echo/still-alive?ok=1'));
  assert.equal(res.status, 200);
  const doc = JSON.parse(res.body) as Echo;
  assert.equal(doc.path, '/still-alive?ok=1');
  assert.deepEqual(doc.parsedQueryParams, { ok: '1' });
}

/** One multipart/form-data body from fields and files. */
export function multipart(
  boundary: string,
  parts: { name: string; value: string | Buffer; fileName?: string; contentType?: string }[],
  final = true,
): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.fileName !== undefined) head += `; filename="${p.fileName}"`;
    head += '\r\n';
    if (p.contentType !== undefined) head += `Content-Type: ${p.contentType}\r\n`;
    out.push(
      Buffer.from(head + '\r\n'),
      Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value),
      Buffer.from('\r\n'),
    );
  }
  if (final) out.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(out);
}

/**
 * Writes `request` and collects every byte until the server closes the connection (for HEAD answers
 * and pipelined requests, which the content-length reader of rawRequest cannot frame).
 */
export function rawUntilClose(
  port: number,
  request: Buffer | string | (Buffer | string)[],
  timeoutMs = 10_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error('no close; received: ' + Buffer.concat(chunks).toString('latin1').slice(0, 300)));
    }, timeoutMs);
    sock.on('data', (c: Buffer) => chunks.push(c));
    sock.on('error', () => undefined); // a reset after the answer still leaves the bytes received
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    // Written in separate writes, in order: pieces may reach the server in separate packets.
    for (const part of Array.isArray(request) ? request : [request]) sock.write(part);
  });
}
