/**
 * The cleartext port of a real app with its defaults: h2c is on (GRPC_CLEARTEXT), and HTTP/1.1 beside
 * it answers as it does with h2c off: a request, a WebSocket upgrade and a gRPC call on one port; a
 * request line arriving one byte at a time (`PUT`, and `PRI` that is not the preface); a partial preface
 * that stalls is closed within the preface wait plus HEADERS_TIMEOUT.
 */
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { H2_PREFACE } from '../../src/grpc/transport.js';
import { ADMIN_KEY, startApp } from '../helpers/app.js';
import { unary } from '../helpers/grpc.js';
import { shopApp, shopClient } from './serve-fixture.js';

/** Writes `data` (one byte a write, 2 ms apart, when `oneByOne`); everything read until the close. */
function exchange(port: number, data: string | Buffer, oneByOne = false, maxMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    const socket = netConnect(port, '127.0.0.1', () => {
      socket.setNoDelay(true);
      void (async () => {
        if (!oneByOne) return void socket.write(data);
        for (const byte of Buffer.from(data)) {
          socket.write(Buffer.from([byte]));
          await new Promise((r) => setTimeout(r, 2));
        }
      })();
    });
    const timer = setTimeout(() => socket.destroy(), maxMs);
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(parts).toString('latin1'));
    });
  });
}

test('the default port serves an HTTP/1.1 request, a WebSocket upgrade and an h2c gRPC call', async (t) => {
  const app = await shopApp(t);
  const live = await fetch(`${app.url}/livez`);
  assert.equal(live.status, 200);

  const ws = new WebSocket(`${app.url.replace('http:', 'ws:')}/api/v2/endpoints/shop/tunnel`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  t.after(() => ws.terminate());
  const hello = await new Promise<Record<string, unknown>>((resolve, reject) => {
    ws.once('message', (data: Buffer) => resolve(JSON.parse(data.toString()) as Record<string, unknown>));
    ws.once('error', reject);
  });
  assert.equal(hello['type'], 'hello');
  assert.equal(hello['endpoint'], 'shop');

  const item = await unary<Record<string, unknown>>(shopClient(t, app), 'Get', { id: 'a1' });
  assert.equal(typeof item, 'object');
  // HTTP/1.1 still answers on the same port after both.
  assert.equal((await fetch(`${app.url}/livez`)).status, 200);
});

test('GRPC_CLEARTEXT=false: the HTTP/2 preface is a bad HTTP/1.1 request', async (t) => {
  const app = await startApp({ grpcH2c: false }, { listen: true });
  t.after(() => app.stop());
  assert.match(await exchange(app.port, H2_PREFACE), /^HTTP\/1\.1 400 /);
});

test('one byte at a time: PUT with a body is served, PRI that is not the preface gets 400', async (t) => {
  const app = await startApp({}, { listen: true });
  t.after(() => app.stop());
  const put = await exchange(
    app.port,
    'PUT /e/echo/bytes HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello',
    true,
  );
  assert.match(put, /^HTTP\/1\.1 200 /);
  const doc = JSON.parse(put.slice(put.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
  assert.equal(doc['method'], 'PUT');
  assert.equal(doc['rawBody'] ?? doc['parsedBody'], 'hello', JSON.stringify(doc));
  // Matches the preface for its first 9 bytes, then is HTTP/1.1's (and llhttp's) bad request.
  const pri = await exchange(app.port, 'PRI * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', true);
  assert.match(pri, /^HTTP\/1\.1 400 /);
});

test('a partial preface that stalls is closed: 408 within the preface wait plus HEADERS_TIMEOUT', async (t) => {
  // The preface wait is HEADERS_TIMEOUT; Node checks its timeouts every min(1 s, HEADERS_TIMEOUT).
  const app = await startApp({ headersTimeout: 500, requestTimeout: 2000 }, { listen: true });
  t.after(() => app.stop());
  const started = Date.now();
  const answer = await exchange(app.port, H2_PREFACE.subarray(0, 10), false, 10_000);
  const ms = Date.now() - started;
  assert.match(answer, /^HTTP\/1\.1 408 /);
  assert.ok(ms >= 500 && ms < 3000, `closed after ${ms} ms`);
});
