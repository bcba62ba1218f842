/**
 * Stops: slow or hoarding clients holding the service (issue 11, item 3). A body that never finishes
 * is answered 408 within REQUEST_TIMEOUT; one address holds at most MAX_CONNECTIONS_PER_IP sockets; a
 * shutdown cuts requests still open after SHUTDOWN_TIMEOUT and flushes the history anyway.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startApp } from '../helpers/app.js';
import { parseResponse } from '../helpers/raw.js';
import { openSqliteStore } from '../../src/store/index.js';

/** Opens a socket, writes `data`, and resolves with what arrived when it closed (or after `ms`). */
function hold(
  port: number,
  data: string,
  ms: number,
): Promise<{ received: string; closed: boolean; after: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const sock = net.connect(port, '127.0.0.1', () => sock.write(data));
    let received = '';
    sock.on('data', (c) => (received += c.toString('latin1')));
    sock.on('error', () => undefined);
    const timer = setTimeout(() => {
      sock.destroy();
      resolve({ received, closed: false, after: Date.now() - started });
    }, ms);
    sock.on('close', () => {
      clearTimeout(timer);
      resolve({ received, closed: true, after: Date.now() - started });
    });
  });
}

test('a body announced as 100 bytes but sent as 10 is answered 408 within REQUEST_TIMEOUT', async () => {
  const app = await startApp({ requestTimeout: 1500, headersTimeout: 1500 }, { listen: true });
  try {
    const r = await hold(
      app.port,
      'POST /e/echo/slow HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n0123456789',
      8000,
    );
    assert.equal(r.closed, true, 'the server closed the connection');
    assert.ok(r.after < 5000, `held ${r.after} ms`);
    assert.equal(parseResponse(r.received).status, 408);
    assert.equal(JSON.parse(parseResponse(r.received).body).error.code, 'request_timeout');
  } finally {
    await app.stop();
  }
});

test('MAX_CONNECTIONS_PER_IP: limit − 1 and limit sockets stay open, the next is closed at once', async () => {
  const app = await startApp({ maxConnectionsPerIp: 3 }, { listen: true });
  const sockets: net.Socket[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const s = net.connect(app.port, '127.0.0.1');
      s.on('error', () => undefined);
      await new Promise((r) => s.once('connect', r));
      sockets.push(s);
    }
    const over = await hold(app.port, '', 2000);
    assert.equal(over.closed, true, 'the fourth connection is closed');
    assert.equal(over.received, '');
    sockets.pop()!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = await fetch(`http://127.0.0.1:${app.port}/e/echo/ok`, { headers: { connection: 'close' } });
    assert.equal(again.status, 200, 'a freed slot serves the next connection');
  } finally {
    sockets.forEach((s) => s.destroy());
    await app.stop();
  }
});

test('SHUTDOWN_TIMEOUT: an open request is cut at the deadline and answered requests are still recorded', async () => {
  const store = await openSqliteStore(':memory:'); // kept open past the app's close, to read the history
  const app = await startApp({ shutdownTimeout: 500 }, { listen: true, store });
  const answered = await fetch(`http://127.0.0.1:${app.port}/e/echo/before-shutdown`);
  assert.equal(answered.status, 200);
  const slow = hold(
    app.port,
    'POST /e/echo/slow HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n01234',
    10_000,
  );
  await new Promise((r) => setTimeout(r, 100));
  const started = Date.now();
  await app.close();
  const took = Date.now() - started;
  assert.ok(took < 3000, `close took ${took} ms`);
  assert.equal((await slow).closed, true);
  const entries = await store.listHistory('echo', { path: { substring: '/before-shutdown' } }, 10);
  assert.equal(entries.data.length, 1);
  await app.stop();
  await store.close();
});
