/**
 * Header names from any peer are data, never object keys that reach Object.prototype: a tunnel peer or
 * a proxied upstream answering `__proto__`, `constructor`, `toString` or `hasOwnProperty` headers
 * (a `__proto__` header used to kill the server in the history's size accounting, `TypeError: v is not
 * iterable`; `constructor` came back as `function Object() { [native code] }`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { ALLOW_LOOPBACK, adminAuth } from '../helpers/app.js';
import { useApp } from '../helpers/endpoint.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { until } from '../helpers/until.js';
import { historyOf, proxyApp, rawValues, send, upstream } from '../proxy/proxy-helpers.js';
import { startTarget, startTunnelCli } from '../tunnel/tunnel-helpers.js';
import { freshPgDatabase, pgSkip } from '../helpers/pg.js';

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
const LINES: [string, string][] = [
  ...NAMES.map((n): [string, string] => [n, `v-${n}`]),
  ['x-twice', 'a'],
  ['x-twice', 'b'],
  ['constructor', 'again'],
];

/** What every answer must carry: each name as data, repeated names as lists. */
function assertCarried(raw: readonly string[]): void {
  assert.deepEqual(rawValues(raw, '__proto__'), ['v-__proto__']);
  assert.deepEqual(rawValues(raw, 'constructor'), ['v-constructor', 'again']);
  assert.deepEqual(rawValues(raw, 'tostring'), ['v-toString']);
  assert.deepEqual(rawValues(raw, 'hasownproperty'), ['v-hasOwnProperty']);
  assert.deepEqual(rawValues(raw, 'x-twice'), ['a', 'b']);
}

function assertRecorded(headers: Record<string, string | string[]>): void {
  assert.equal(Object.getPrototypeOf(headers) === Array.prototype, false);
  assert.deepEqual(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value, 'v-__proto__');
  assert.deepEqual(Object.getOwnPropertyDescriptor(headers, 'constructor')?.value, [
    'v-constructor',
    'again',
  ]);
  assert.equal(Object.getOwnPropertyDescriptor(headers, 'tostring')?.value, 'v-toString');
  assert.equal(Object.getOwnPropertyDescriptor(headers, 'hasownproperty')?.value, 'v-hasOwnProperty');
}

test('a tunnel peer answering __proto__, constructor, toString, hasOwnProperty headers: the server stays up, they are data', async (t) => {
  const app = await useApp(t, {}, { listen: true });
  await createEndpoint(app, 'shop');
  assert.equal((await call(app, 'PATCH', '/endpoints/shop/settings', { localTunnel: true })).status, 200);
  const ws = new WebSocket(`ws://127.0.0.1:${app.port}/api/v2/endpoints/shop/tunnel`, { headers: adminAuth });
  t.after(() => ws.close());
  ws.on('message', (d, isBinary) => {
    if (isBinary) return;
    const f = JSON.parse((d as Buffer).toString()) as { type: string; id: number };
    if (f.type !== 'end') return;
    ws.send(JSON.stringify({ type: 'response', id: f.id, status: 200, headers: LINES }));
    ws.send(JSON.stringify({ type: 'end', id: f.id }));
  });
  await until(() => app.ctx.tunnels.clients('shop') === 1);

  for (let i = 0; i < 2; i++) {
    const r = await send(`${app.url}/e/shop/through`);
    assert.equal(r.status, 200);
    assertCarried(r.rawHeaders);
  }
  // Still up, and the history holds what was answered.
  const [entry] = await historyOf(app);
  assert.equal(entry?.behavior, 'tunnel');
  assertRecorded(entry.responseHeaders);
  const api = await call(app, 'GET', `/endpoints/shop/requests/${entry.id}`);
  assert.equal(api.status, 200);
  assert.equal(api.body.response.headers['__proto__'], 'v-__proto__');
  assert.deepEqual(api.body.response.headers['constructor'], ['v-constructor', 'again']);
});

test('a proxied upstream answering __proto__, constructor, toString, hasOwnProperty headers: the same', async (t) => {
  const up = await upstream((_req, res) => {
    res.writeHead(200, LINES.flat());
    res.end('ok');
  });
  t.after(() => up.close());
  const app = await proxyApp(up.url);
  t.after(() => app.stop());
  for (let i = 0; i < 2; i++) {
    const r = await send(`${app.endpointUrl}/through`, {
      // A raw list (Node adds no Host to one): names as sent.
      headers: ['host', `127.0.0.1:${app.port}`, '__proto__', 'q', 'constructor', 'c', 'toString', 't'],
    });
    assert.equal(r.status, 200);
    assert.equal(r.text, 'ok');
    assertCarried(r.rawHeaders);
  }
  assert.deepEqual(rawValues(up.seen[0]!.rawHeaders, '__proto__'), ['q']);
  assert.deepEqual(rawValues(up.seen[0]!.rawHeaders, 'constructor'), ['c']);
  const [entry] = await historyOf(app);
  assert.equal(entry?.behavior, 'proxy');
  assertRecorded(entry.responseHeaders);
  assert.equal(Object.getOwnPropertyDescriptor(entry.requestHeaders, '__proto__')?.value, 'q');
  assert.equal(Object.getOwnPropertyDescriptor(entry.requestHeaders, 'constructor')?.value, 'c');
});

test('a sync callout whose target answers __proto__, constructor, toString headers: the same', async (t) => {
  const up = await upstream((_req, res) => {
    res.writeHead(200, LINES.flat());
    res.end('called');
  });
  t.after(() => up.close());
  const app = await useApp(t, { ...ALLOW_LOOPBACK }, { listen: true }); // the callout target is on loopback
  await createEndpoint(app, 'shop');
  const rule = {
    conditions: [{ type: 'path', operator: 'equals', value: '/c' }],
    action: { type: 'callout', behavior: 'sync', callout: { url: `${up.url}/target` } },
  };
  assert.equal((await call(app, 'POST', '/endpoints/shop/rules', rule)).status, 201);
  for (let i = 0; i < 2; i++) {
    const r = await send(`${app.url}/e/shop/c`, {
      headers: ['host', `127.0.0.1:${app.port}`, '__proto__', 'q', 'constructor', 'c'],
    });
    assert.equal(r.status, 200);
    assert.equal(r.text, 'called');
    assertCarried(r.rawHeaders);
  }
  assert.deepEqual(rawValues(up.seen[0]!.rawHeaders, '__proto__'), ['q']);
  const [entry] = await historyOf(app);
  assert.equal(entry?.behavior, 'callout');
  assertRecorded(entry.responseHeaders);
});

test('mockingbird tunnel forwarding a local service that answers __proto__ and constructor headers: the server stays up', async (t) => {
  const seenRaw: string[][] = [];
  const target = await startTarget((req, res) => {
    seenRaw.push(req.rawHeaders);
    res.writeHead(200, LINES.flat());
    res.end('local');
  });
  t.after(() => target.close());
  const app = await useApp(t, {}, { listen: true });
  await createEndpoint(app, 'shop');
  assert.equal((await call(app, 'PATCH', '/endpoints/shop/settings', { localTunnel: true })).status, 200);
  const cli = startTunnelCli(app.port, 'shop', target.port);
  t.after(() => {
    cli.child.kill();
  });
  await cli.connected();
  const r = await send(`${app.url}/e/shop/local`, {
    headers: ['host', `127.0.0.1:${app.port}`, '__proto__', 'q', 'constructor', 'c'],
  });
  assert.equal(r.status, 200);
  assert.equal(r.text, 'local');
  assertCarried(r.rawHeaders);
  // The request's own such headers reached the local service as data.
  assert.deepEqual(rawValues(seenRaw[0]!, 'constructor'), ['c']);
  assert.deepEqual(rawValues(seenRaw[0]!, '__proto__'), ['q']);
  const [entry] = await historyOf(app);
  assert.equal(entry?.behavior, 'tunnel');
  assertRecorded(entry.responseHeaders);
});

test('rule and default-response headers named __proto__, constructor, toString: answered as data', async (t) => {
  const app = await useApp(t, {}, { listen: true });
  await createEndpoint(app, 'shop');
  const headers = [
    { key: '__proto__', value: 'v-__proto__' },
    { key: 'constructor', value: 'v-constructor' },
    { key: 'constructor', value: 'again' },
    { key: 'toString', value: 'v-toString' },
    { key: 'hasOwnProperty', value: 'v-hasOwnProperty' },
    { key: 'x-twice', value: 'a' },
    { key: 'x-twice', value: 'b' },
  ];
  const rule = {
    conditions: [{ type: 'path', operator: 'template', value: '/users/:constructor' }],
    action: {
      type: 'mock',
      status: 200,
      headers,
      body: '{{pathParam "constructor" "none"}}',
      templated: true,
    },
  };
  assert.equal((await call(app, 'POST', '/endpoints/shop/rules', rule)).status, 201);
  const r = await send(`${app.url}/e/shop/users/7`);
  assert.equal(r.status, 200);
  assert.equal(r.text, '7');
  assertCarried(r.rawHeaders);
  const [entry] = await historyOf(app);
  assertRecorded(entry!.responseHeaders);

  const proto = {
    conditions: [{ type: 'path', operator: 'template', value: '/p/:__proto__' }],
    action: { type: 'mock', status: 200, body: '{{pathParam "__proto__" "none"}}', templated: true },
  };
  assert.equal((await call(app, 'POST', '/endpoints/shop/rules', proto)).status, 201);
  assert.equal((await send(`${app.url}/e/shop/p/kept`)).text, 'kept');

  const patch = { defaultResponse: { status: 202, headers: headers.slice(0, 2), body: 'default' } };
  assert.equal((await call(app, 'PATCH', '/endpoints/shop/settings', patch)).status, 200);
  const d = await send(`${app.url}/e/shop/elsewhere`);
  assert.equal(d.status, 202);
  assert.deepEqual(rawValues(d.rawHeaders, '__proto__'), ['v-__proto__']);
  assert.deepEqual(rawValues(d.rawHeaders, 'constructor'), ['v-constructor']);
});

test(
  'PostgreSQL: an answer with __proto__ and constructor headers is recorded as data',
  { skip: pgSkip },
  async (t) => {
    const db = await freshPgDatabase();
    t.after(() => db.drop());
    const app = await useApp(t, { databaseUrl: db.url }, { listen: true });
    await createEndpoint(app, 'shop');
    const headers = [
      { key: '__proto__', value: 'v-__proto__' },
      { key: 'constructor', value: 'v-constructor' },
      { key: 'constructor', value: 'again' },
      { key: 'toString', value: 'v-toString' },
      { key: 'hasOwnProperty', value: 'v-hasOwnProperty' },
    ];
    const rule = {
      conditions: [{ type: 'path', operator: 'equals', value: '/h' }],
      action: { type: 'mock', headers },
    };
    assert.equal((await call(app, 'POST', '/endpoints/shop/rules', rule)).status, 201);
    const r = await send(`${app.url}/e/shop/h`);
    assert.equal(r.status, 200);
    const [entry] = await historyOf(app);
    assertRecorded(entry!.responseHeaders);
  },
);
