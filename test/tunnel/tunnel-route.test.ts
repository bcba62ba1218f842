/**
 * The tunnel's WebSocket route and hub in-process, with a bare `ws` client speaking the protocol: who
 * may connect (key, scope, endpoint, Origin, plan, TUNNEL_MAX_CLIENTS), the events, the caps
 * (TUNNEL_MAX_CONCURRENT, frame size), a peer that breaks the protocol or stops answering pings, and a
 * server close that does not hang on a connected tunnel.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import { WebSocket } from 'ws';
import { adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { useApp } from '../helpers/endpoint.js';
import { call, createEndpoint, scopedKey } from '../helpers/api-helpers.js';
import { until } from '../helpers/until.js';
import type { Config } from '../../src/config.js';
import type { MockEvent } from '../../src/events/index.js';

async function tunnelApp(t: { after(fn: () => Promise<void>): void }, overrides: Partial<Config> = {}) {
  const app = await useApp(t, overrides, { listen: true });
  await createEndpoint(app, 'shop');
  assert.equal((await call(app, 'PATCH', '/endpoints/shop/settings', { localTunnel: true })).status, 200);
  return app;
}

type Opened = { ws: WebSocket; frames: unknown[] } | { status: number; body: string };

/** Opens the tunnel of `ep`; resolves with the socket once hello arrived, or the refusal. */
function open(
  app: TestApp,
  ep: string,
  headers: Record<string, string> = adminAuth,
  extra = {},
): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${app.port}/api/v2/endpoints/${ep}/tunnel`, {
      headers,
      ...extra,
    });
    const frames: unknown[] = [];
    ws.on('message', (d, isBinary) => {
      frames.push(isBinary ? d : JSON.parse((d as Buffer).toString()));
      if (frames.length === 1) resolve({ ws, frames });
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += String(c)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}

async function connected(
  app: TestApp,
  ep = 'shop',
  extra = {},
): Promise<{ ws: WebSocket; frames: unknown[] }> {
  const o = await open(app, ep, adminAuth, extra);
  assert.ok('ws' in o, `refused: ${JSON.stringify(o)}`);
  return o;
}

function refused(o: Opened, status: number, code: string): void {
  assert.ok('status' in o, 'the tunnel was accepted');
  assert.equal(o.status, status, o.body);
  assert.equal((JSON.parse(o.body) as { error: { code: string } }).error.code, code);
}

test('who may open a tunnel: a key allowed on the endpoint, no foreign Origin, a plan with the tunnel', async (t) => {
  const app = await tunnelApp(t);
  await createEndpoint(app, 'other');
  refused(await open(app, 'shop', {}), 401, 'missing_authentication');
  refused(
    await open(app, 'shop', { authorization: 'mb_wrong_key_0123456789abcdefghijklmnop' }),
    401,
    'unauthorized_api_key',
  );
  refused(await open(app, 'shop', { authorization: await scopedKey(app, 'other') }), 403, 'forbidden');
  refused(await open(app, 'nope'), 404, 'not_found');
  refused(await open(app, 'echo'), 403, 'forbidden');
  refused(await open(app, 'shop', { ...adminAuth, origin: 'https://evil.example' }), 403, 'forbidden');
  const plain = await app.inject({
    method: 'GET',
    url: '/api/v2/endpoints/shop/tunnel',
    headers: adminAuth,
  });
  assert.equal(plain.statusCode, 426);
  assert.equal(plain.json().error.code, 'upgrade_required');

  const scoped = await open(app, 'shop', { authorization: await scopedKey(app, 'shop') });
  assert.ok('ws' in scoped);
  assert.deepEqual(scoped.frames[0], {
    type: 'hello',
    protocol: 1,
    endpoint: 'shop',
    localTunnel: true,
    pingInterval: 15_000,
    maxConcurrent: 100,
  });
  scoped.ws.close();
  const sameOrigin = await open(app, 'shop', { ...adminAuth, origin: `http://127.0.0.1:${app.port}` });
  assert.ok('ws' in sameOrigin, 'the server’s own origin may');
  sameOrigin.ws.close();

  assert.equal((await call(app, 'PATCH', '/endpoints/other/settings', { plan: 'free' })).status, 200);
  refused(await open(app, 'other'), 403, 'plan_limit');
});

test('tunnel.connected and tunnel.disconnected are published', async (t) => {
  const app = await tunnelApp(t);
  const seen: MockEvent[] = [];
  app.ctx.events.subscribe('shop', (e) => seen.push(e));
  const { ws } = await connected(app);
  ws.close();
  await until(() => seen.length === 2);
  assert.deepEqual(
    seen.map((e) => [e.name, (e.data as { clients: number }).clients]),
    [
      ['tunnel.connected', 1],
      ['tunnel.disconnected', 0],
    ],
  );
});

test('TUNNEL_MAX_CLIENTS: 2 clients may connect, a third is 409 until one leaves', async (t) => {
  const app = await tunnelApp(t, { tunnelMaxClients: 2 });
  const one = await connected(app);
  await connected(app);
  refused(await open(app, 'shop'), 409, 'conflict');
  one.ws.close();
  await until(() => app.ctx.tunnels.clients('shop') === 1);
  (await connected(app)).ws.close();
});

test('TUNNEL_MAX_CONCURRENT: a client answers at most that many at once; past it 503', async (t) => {
  const app = await tunnelApp(t, { tunnelMaxConcurrent: 2 });
  const { ws, frames } = await connected(app);
  const url = `http://127.0.0.1:${app.port}/e/shop/`;
  const first = fetch(url + '1');
  const second = fetch(url + '2');
  await until(() => frames.filter((f) => (f as { type: string }).type === 'end').length === 2);
  const third = await fetch(url + '3');
  assert.equal(third.status, 503);
  for (const id of [1, 2]) {
    ws.send(JSON.stringify({ type: 'response', id, status: 200, headers: [['x-n', String(id)]] }));
    ws.send(JSON.stringify({ type: 'end', id }));
  }
  assert.deepEqual(
    (await Promise.all([first, second])).map((r) => [r.status, r.headers.get('x-n')]),
    [
      [200, '1'],
      [200, '2'],
    ],
  );
  // Room again once answered.
  const fourth = fetch(url + '4');
  await until(() => frames.some((f) => (f as { path?: string }).path === '/4'));
  const id = (frames.find((f) => (f as { path?: string }).path === '/4') as { id: number }).id;
  ws.send(JSON.stringify({ type: 'error', id, reason: 'refused', message: '' }));
  assert.equal((await fourth).status, 502);
});

test('a frame that breaks the protocol drops the client; its requests are 502', async (t) => {
  const app = await tunnelApp(t);
  const { ws, frames } = await connected(app);
  const answer = fetch(`http://127.0.0.1:${app.port}/e/shop/x`);
  await until(() => frames.length >= 3);
  ws.send(JSON.stringify({ type: 'response', id: 1, status: 200, headers: [['bad name', 'v']] }));
  const [code] = (await once(ws, 'close')) as [number];
  assert.equal(code, 1002);
  assert.equal((await answer).status, 502);
});

test('a frame over the size cap closes the connection', async (t) => {
  const app = await tunnelApp(t);
  const { ws } = await connected(app);
  ws.send(Buffer.alloc(2 * 1024 * 1024));
  const [code] = (await once(ws, 'close')) as [number];
  assert.equal(code, 1009);
});

test('a client that stops answering pings is dropped', async (t) => {
  const app = await tunnelApp(t, { tunnelPingInterval: 100 });
  const { ws } = await connected(app, 'shop', { autoPong: false });
  await once(ws, 'close');
  await until(() => app.ctx.tunnels.clients('shop') === 0);
});

test('the server closes promptly with a tunnel connected; the client is told 1001', async () => {
  const app = await startApp({}, { listen: true });
  await createEndpoint(app, 'shop');
  const { ws } = await connected(app);
  const closed = once(ws, 'close');
  const started = Date.now();
  await app.stop();
  assert.ok(Date.now() - started < 3000);
  assert.equal(((await closed) as [number])[0], 1001);
});

test('a response body the HTTP client does not read is paused, and resumed once it reads', async (t) => {
  const app = await tunnelApp(t);
  const { ws, frames } = await connected(app);
  const types = (): string[] =>
    frames.map((f) => (Buffer.isBuffer(f) ? 'body' : (f as { type: string }).type));
  const res = await new Promise<http.IncomingMessage>((resolve) => {
    http.get(`http://127.0.0.1:${app.port}/e/shop/big`, resolve);
    void until(() => types().includes('end')).then(() => {
      ws.send(JSON.stringify({ type: 'response', id: 1, status: 200, headers: [] }));
    });
  });
  res.pause();
  const chunk = Buffer.alloc(64 * 1024, 1);
  const frame = Buffer.concat([Buffer.from([0, 0, 0, 1]), chunk]);
  let sent = 0;
  while (!types().includes('pause') && sent < 64 * 1024 * 1024) {
    ws.send(frame);
    sent += chunk.length;
    await new Promise((r) => setImmediate(r));
  }
  assert.ok(types().includes('pause'), `no pause after ${sent} bytes`);
  let received = 0;
  res.on('data', (c: Buffer) => (received += c.length));
  const ended = once(res, 'end');
  res.resume();
  await until(() => types().includes('resume'), 5000, 'no resume');
  ws.send(JSON.stringify({ type: 'end', id: 1 }));
  await ended;
  assert.equal(received, sent);
});
