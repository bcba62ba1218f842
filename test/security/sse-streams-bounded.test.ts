/**
 * Stops: event streams without bound (issue 11, item 5). 2,000 streams that never read took the process
 * from 148 MB to 3.5 GB, and the slow-reader cap ended them with `res.end()`, which kept every buffered
 * byte. Now one key holds at most SSE_MAX_STREAMS_PER_KEY streams and the instance SSE_MAX_STREAMS (429
 * `rate_limited` with Retry-After past either, before the response is taken over); a reader that leaves
 * more than SSE_MAX_BUFFERED unread has its connection destroyed; and every way a stream ends gives its
 * slot and its bus subscription back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { createKey } from '../../src/api/index.js';
import type { Config } from '../../src/config.js';
import { CountingBus } from '../helpers/counting-bus.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { newEndpoint } from '../helpers/history-fixtures.js';

interface Opened {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The whole body of an answer that is not a stream. */
  json(): Promise<{ error: { code: string; message: string } }>;
  close(): void;
}

/** GETs the event stream of `ep` with `key`, on a connection of its own; resolves on the response head. */
function open(app: TestApp, ep: string, key: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${app.url}/api/v2/endpoints/${ep}/events`,
      { agent: false, headers: { authorization: key } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        const ended = new Promise<void>((r) => res.on('close', () => r()));
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          json: async () => {
            await ended;
            return JSON.parse(text) as { error: { code: string; message: string } };
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
  });
}

async function withApp(
  overrides: Partial<Config>,
  fn: (app: TestApp, bus: CountingBus) => Promise<void>,
): Promise<void> {
  const bus = new CountingBus();
  const app = await startApp(overrides, { listen: true, events: bus });
  try {
    await fn(app, bus);
  } finally {
    await app.stop();
  }
}

/** The server side of every connection the app accepts from now on. */
function serverSockets(app: TestApp): Set<net.Socket> {
  const open = new Set<net.Socket>();
  app.fastify.server.on('connection', (s: net.Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  return open;
}

/**
 * A raw client that sends the GET, waits for the response head, and then never reads again until
 * told to; `ended` resolves with everything it received once its connection has closed.
 */
async function stalledReader(
  app: TestApp,
  ep: string,
): Promise<{ sock: net.Socket; head: string; ended: Promise<string> }> {
  const sock = net.connect(app.port, '127.0.0.1');
  sock.on('error', () => undefined);
  let received = '';
  const ended = new Promise<string>((r) => sock.on('close', () => r(received)));
  sock.write(`GET /api/v2/endpoints/${ep}/events HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN_KEY}\r\n\r\n`);
  const head = await new Promise<string>((resolve) =>
    sock.once('data', (c: Buffer) => resolve(c.toString())),
  );
  sock.pause();
  sock.on('data', (c: Buffer) => (received += c.toString('latin1')));
  return { sock, head, ended };
}

test('SSE_MAX_STREAMS_PER_KEY: limit − 1 and limit streams open, the next is 429; another key still gets one; closing one frees a slot', async () => {
  await withApp({ sseMaxStreamsPerKey: 3, sseMaxStreams: 100 }, async (app, bus) => {
    const ep = await newEndpoint(app, 'sse-cap');
    const { key: other } = await createKey(app.ctx.store, ep);
    const mine: Opened[] = [];
    try {
      for (let i = 1; i <= 3; i++) {
        const s = await open(app, ep, ADMIN_KEY);
        mine.push(s);
        assert.equal(s.status, 200, `stream ${i} of 3`);
      }
      const over = await open(app, ep, ADMIN_KEY);
      assert.equal(over.status, 429);
      assert.match(String(over.headers['content-type']), /^application\/json/);
      assert.equal(over.headers['retry-after'], '10');
      const body = await over.json();
      assert.equal(body.error.code, 'rate_limited');
      assert.match(body.error.message, /SSE_MAX_STREAMS_PER_KEY/);
      assert.equal(bus.active, 3, 'the refused request never subscribed');

      const theirs = await open(app, ep, other);
      assert.equal(theirs.status, 200, 'another key is not affected');
      mine.push(theirs);

      mine.shift()!.close();
      await until(() => bus.active === 3, 2000, 'the closed stream was not released');
      const again = await open(app, ep, ADMIN_KEY);
      mine.push(again);
      assert.equal(again.status, 200, 'a closed stream gives its slot back');
    } finally {
      for (const s of mine) s.close();
    }
  });
});

test('SSE_MAX_STREAMS: limit − 1 and limit streams open over several keys, the next is 429 whatever the key; closing one frees a slot', async () => {
  await withApp({ sseMaxStreams: 3, sseMaxStreamsPerKey: 10 }, async (app, bus) => {
    const ep = await newEndpoint(app, 'sse-cap');
    const { key: a } = await createKey(app.ctx.store, ep);
    const { key: b } = await createKey(app.ctx.store, ep);
    const { key: fresh } = await createKey(app.ctx.store, null);
    const streams: Opened[] = [];
    try {
      for (const [i, key] of [ADMIN_KEY, a, b].entries()) {
        const s = await open(app, ep, key);
        streams.push(s);
        assert.equal(s.status, 200, `stream ${i + 1} of 3`);
      }
      const over = await open(app, ep, fresh);
      assert.equal(over.status, 429, 'a key with no stream yet is refused too');
      assert.equal(over.headers['retry-after'], '10');
      const body = await over.json();
      assert.equal(body.error.code, 'rate_limited');
      assert.match(body.error.message, /SSE_MAX_STREAMS\b/);
      assert.equal(bus.active, 3);

      streams.shift()!.close();
      await until(() => bus.active === 2, 2000, 'the closed stream was not released');
      const again = await open(app, ep, fresh);
      streams.push(again);
      assert.equal(again.status, 200, 'a closed stream gives its slot back');
    } finally {
      for (const s of streams) s.close();
    }
  });
});

test('a reader that never reads is cut off past SSE_MAX_BUFFERED: its connection is destroyed and its slot freed', async () => {
  await withApp({ sseMaxBuffered: 16 * 1024, sseMaxStreamsPerKey: 1 }, async (app, bus) => {
    const ep = await newEndpoint(app, 'sse-slow');
    const server = serverSockets(app);
    const { sock, head, ended } = await stalledReader(app, ep);
    try {
      assert.match(head, /^HTTP\/1\.1 200/);
      await until(() => bus.active === 1);
      const [conn] = [...server];
      assert.ok(conn, 'the stream has a server-side connection');
      // Far more than the kernel's socket buffers take: the rest waits in the process until the cap.
      const pad = 'x'.repeat(64 * 1024);
      let sent = 0;
      while (sent < 1000 && !conn.destroyed) {
        app.ctx.events.publish({ endpoint: ep, name: 'rule.updated', data: { i: sent, pad } });
        if (++sent % 8 === 0) await new Promise((r) => setImmediate(r));
      }
      // Ending the response (the old behaviour) kept the connection and every byte queued on it.
      await until(() => !server.has(conn), 2000, 'the connection of the stalled reader is still open');
      assert.equal(conn.writableLength, 0, 'nothing is left queued for it');
      assert.equal(bus.active, 0, 'its subscription is gone');

      // The client, reading again, finds the connection gone (reset, so that what the kernel held
      // for it is dropped too), not a stream that ends after megabytes of stale events.
      sock.resume();
      const received = await ended;
      assert.ok(!received.endsWith('0\r\n\r\n'), 'not a cleanly ended stream');
      assert.ok(received.length < sent * pad.length, `received ${received.length} bytes`);

      // SSE_MAX_STREAMS_PER_KEY is 1: the key may open a stream again.
      const again = await open(app, ep, ADMIN_KEY);
      assert.equal(again.status, 200);
      again.close();
    } finally {
      sock.destroy();
    }
  });
});

test('a reader that keeps up is not cut off by a burst larger than SSE_MAX_BUFFERED (a history batch of 500 events)', async () => {
  await withApp({}, async (app, bus) => {
    assert.equal(app.ctx.config.sseMaxBuffered, 256 * 1024);
    const ep = await newEndpoint(app, 'sse-burst');
    let text = '';
    let ended = false;
    const events = (): number => text.split('event: request.created').length - 1;
    const req = http.get(
      `${app.url}/api/v2/endpoints/${ep}/events`,
      { agent: false, headers: { authorization: ADMIN_KEY } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('close', () => (ended = true));
      },
    );
    try {
      await until(() => bus.active === 1);
      // About 320 KB in one tick, as the history writer publishes one batch's entries.
      const path = '/orders/' + 'x'.repeat(600);
      for (let i = 0; i < 500; i++)
        app.ctx.events.publish({ endpoint: ep, name: 'request.created', data: { id: i, path } });
      await until(() => events() === 500 || ended, 5000, `only ${events()} of 500 events arrived`);
      assert.equal(events(), 500);
      assert.equal(ended, false, 'the stream is still open');
      assert.equal(bus.active, 1);
    } finally {
      req.destroy();
    }
  });
});

test('a reader that left bytes unread does not hold the server when it closes', async () => {
  await withApp({ sseMaxBuffered: 64 * 1024 * 1024, shutdownTimeout: 10_000 }, async (app, bus) => {
    const ep = await newEndpoint(app, 'sse-slow');
    const server = serverSockets(app);
    const { sock } = await stalledReader(app, ep);
    try {
      await until(() => bus.active === 1);
      const [conn] = [...server];
      assert.ok(conn);
      const pad = 'x'.repeat(64 * 1024);
      // Until bytes stay queued past a turn of the event loop: the kernel's buffers are full.
      for (let i = 0; i < 1000 && conn.writableLength === 0; i++) {
        app.ctx.events.publish({ endpoint: ep, name: 'rule.updated', data: { i, pad } });
        await new Promise((r) => setImmediate(r));
      }
      assert.ok(conn.writableLength > 0, 'bytes are waiting for the reader');
      const started = Date.now();
      await app.fastify.close();
      assert.ok(Date.now() - started < 3000, `close took ${Date.now() - started} ms`);
      await until(() => !server.has(conn), 1000, 'the connection outlived the server');
      assert.equal(bus.active, 0);
    } finally {
      sock.destroy();
    }
  });
});

test('a client that leaves while its stream is being authorised gives its slot back', async () => {
  await withApp({ sseMaxStreamsPerKey: 1 }, async (app, bus) => {
    const ep = await newEndpoint(app, 'sse-gone');
    const server = serverSockets(app);
    // Hold the endpoint lookup, the last await before the stream opens, until the client has gone.
    const store = app.ctx.store;
    const getEndpoint = store.getEndpoint.bind(store);
    let reached = false;
    let letGo!: () => void;
    const gate = new Promise<void>((r) => (letGo = r));
    store.getEndpoint = async (name) => {
      if (name === ep && !reached) {
        reached = true;
        await gate;
      }
      return getEndpoint(name);
    };
    const sock = net.connect(app.port, '127.0.0.1');
    sock.on('error', () => undefined);
    sock.write(
      `GET /api/v2/endpoints/${ep}/events HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN_KEY}\r\n\r\n`,
    );
    await until(() => reached);
    sock.destroy();
    await until(() => server.size === 0, 2000, 'the server did not see the client go');
    letGo();

    const next = await open(app, ep, ADMIN_KEY);
    try {
      assert.equal(next.status, 200, 'the slot of the client that left is free');
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(bus.active, 1, 'only the open stream is subscribed');
    } finally {
      next.close();
    }
  });
});
