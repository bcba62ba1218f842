/**
 * The endpoint plane's door (src/serve/door.ts) serves every endpoint request, and only those: each
 * request goes over a socket, and the door's count says whether it took it, or the checks below could
 * pass with requests Fastify answered. What it answers is what the history records. Then the door
 * alone, on a stand-in lifecycle: a failure is the one error body, a header Node refuses too, the
 * request line is written once with the URL as sent, and while closing every request is 503.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { startApp, type TestApp } from '../helpers/app.js';
import { rawRequest } from '../helpers/raw.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { targetFinder, type Lifecycle, type ResolvedEndpoint } from '../../src/endpoint/index.js';
import { AppError } from '../../src/errors.js';
import { endpointPlane } from '../../src/serve/index.js';

const BASE = 'mock.test';
let app: TestApp;

async function setUp(app: TestApp): Promise<void> {
  await createEndpoint(app, 'shop');
  const rules = [
    { method: 'GET', path: '/items', status: 200, body: '{"q":"{{queryParam \'q\'}}"}', templated: true },
    { method: 'GET', path: '/empty', status: 204, body: '' },
    { method: 'GET', path: '/typed', status: 200, body: 'odd', type: 'not a type' },
  ];
  for (const r of rules) {
    const res = await call(app, 'POST', '/endpoints/shop/rules', {
      method: r.method,
      conditions: [{ type: 'path', operator: 'equals', value: r.path }],
      action: {
        type: 'mock',
        status: r.status,
        templated: r.templated ?? false,
        headers: r.type ? [{ key: 'content-type', value: r.type }] : [],
        body: r.body,
      },
    });
    assert.equal(res.status, 201, res.text);
  }
}

before(async () => {
  app = await startApp({ bodyLimit: 64, baseDomain: BASE }, { listen: true });
  await setUp(app);
});
after(async () => {
  await app.stop();
});

const req = (head: string, body = ''): string =>
  `${head}\r\nHost: x\r\nConnection: close\r\n${body ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`;

/** Each request, whether the door takes it, and the status it gets. */
const REQUESTS: [string, 'door' | 'fastify', number][] = [
  [req('GET /e/echo/a?b=1&b=2 HTTP/1.1'), 'door', 200],
  [req('POST /e/echo/p HTTP/1.1\r\nContent-Type: application/json', '{"x":1}'), 'door', 200],
  [req('POST /e/echo/big HTTP/1.1\r\nContent-Type: text/plain', 'y'.repeat(100)), 'door', 413],
  [req('HEAD /e/echo/h HTTP/1.1'), 'door', 200],
  [req('GET /e/ECHO/upper HTTP/1.1'), 'door', 200],
  [req('PROPFIND /e/echo/dav HTTP/1.1'), 'door', 200],
  [
    req('OPTIONS /e/echo/o HTTP/1.1\r\nOrigin: http://a.example\r\nAccess-Control-Request-Method: PUT'),
    'door',
    204,
  ],
  [req('GET /e/echo/v HTTP/1.1\r\nAccept-Version: 1.x'), 'door', 200],
  [req('GET /e/echo/caf%C3%A9?x=%41 HTTP/1.1'), 'door', 200],
  [req('GET /e/echo/%zz HTTP/1.1'), 'door', 200], // the raw path, passed on (docs/architecture.md)
  [req('GET /e/echo/q?x=%zz HTTP/1.1'), 'door', 200],
  [req('GET /e/nope/x HTTP/1.1'), 'door', 404],
  [req('GET /e/shop/items?q=1 HTTP/1.1'), 'door', 200], // not in the cache yet: the door awaits the read
  [req('GET /e/shop/items?q=2 HTTP/1.1'), 'door', 200],
  [req('GET /e/shop/empty HTTP/1.1'), 'door', 204],
  [req('GET /e/shop/typed HTTP/1.1'), 'door', 200],
  [req('GET /e/shop/nothing HTTP/1.1'), 'door', 200],
  [`GET /items?q=3 HTTP/1.1\r\nHost: shop.${BASE}\r\nConnection: close\r\n\r\n`, 'door', 200],
  [req('GET /e/' + 'a'.repeat(1001) + '/x HTTP/1.1'), 'door', 414],
  [req('GET /e HTTP/1.1'), 'fastify', 404],
  [req('GET /e/ HTTP/1.1'), 'door', 404],
  [req('GET /api/v2/endpoints HTTP/1.1'), 'fastify', 401],
];

test('the door serves every endpoint request, and records what it sends', async () => {
  const sent = new Map<string, { status: number; body: string }>();
  for (const [request, taker, status] of REQUESTS) {
    const before = app.plane.stats().served;
    const r = await rawRequest(app.port, request);
    const line = request.slice(0, request.indexOf('\r\n'));
    assert.equal(r.status, status, `${line}: ${r.raw.slice(0, 300)}`);
    assert.equal(app.plane.stats().served > before ? 'door' : 'fastify', taker, line);
    if (taker === 'door' && !line.startsWith('HEAD')) sent.set(line, { status: r.status, body: r.body });
  }
  assert.match(
    (await rawRequest(app.port, req('GET /e/shop/typed HTTP/1.1'))).raw,
    /^content-type: not a type\r$/m,
  );
  for (const ep of ['echo', 'shop']) {
    await app.ctx.history.flush();
    const recorded = (await app.ctx.store.listHistory(ep, {}, 100)).data;
    assert.ok(recorded.length >= 4, `${ep}: ${recorded.length} entries`);
    for (const e of recorded) {
      if (e.method === 'HEAD') continue;
      const got = [...sent].find(([l]) => l.includes(` ${e.path} `) || l.endsWith(`${e.path} HTTP/1.1`));
      if (!got) continue;
      assert.equal(e.status, got[1].status, `${ep} ${e.path}`);
      if (e.status !== 204) assert.equal(e.responseBody, got[1].body, `${ep} ${e.path}`);
    }
  }
});

/** A server whose endpoint requests go through a door over `lifecycle`; the rest are answered 'fastify'. */
async function doorServer(lifecycle: Partial<Lifecycle>) {
  const lines: string[] = [];
  const logged: string[] = [];
  const logger = {
    error: (o: { err?: Error }, msg: string) => logged.push(`${msg}: ${o.err?.message ?? ''}`),
    warn: (_o: unknown, msg: string) => logged.push(msg),
    info: () => {},
  };
  const plane = endpointPlane<ResolvedEndpoint>({
    lifecycle: {
      resolve: () => ({
        endpoint: { record: { name: 'x', createdAt: 0, settings: {} }, settings: {}, plan: null },
        pipeline: { steps: [] },
      }),
      run: () => ({ answer: { status: 200, headers: { 'content-type': 'text/plain' }, body: 'door' } }),
      ...lifecycle,
    },
    log: (r, url, status) => lines.push(`${r.method} ${url} ${status}`),
    logger: logger as never,
    captureLimit: 1024,
    faultTimeoutMax: 60_000,
  });
  const targetOf = targetFinder(BASE);
  const server = createServer((request, res) => {
    const target = targetOf(request);
    if (target) plane.handle(request, res, target);
    else res.writeHead(200, { 'content-length': 7 }).end('fastify');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { plane, lines, logged, port, close: () => new Promise((r) => server.close(r)) };
}

test('a lifecycle that throws or rejects is answered with the one error body, logged once', async () => {
  for (const run of [
    () => {
      throw new Error('thrown');
    },
    () => Promise.reject(new Error('rejected')),
  ]) {
    const s = await doorServer({ run });
    try {
      const r = await rawRequest(s.port, req('GET /e/x/y HTTP/1.1'));
      assert.equal(r.status, 500);
      assert.deepEqual(JSON.parse(r.body), {
        error: { code: 'internal_error', message: 'An internal error occurred.' },
      });
      assert.match(r.headers['content-security-policy'] ?? '', /^sandbox /);
      assert.equal(s.logged.length, 1, s.logged.join('\n'));
      assert.match(s.logged[0]!, /^unhandled error: (thrown|rejected)$/);
      assert.deepEqual(s.lines, ['GET /e/x/y 500']);
    } finally {
      await s.close();
    }
  }
});

test('a failed read of the endpoint is answered as the error says; a header Node refuses is a 500', async () => {
  const s = await doorServer({
    resolve: () =>
      Promise.reject(new AppError('rate_limited', 'slow down', { headers: { 'retry-after': '2' } })),
  });
  try {
    const r = await rawRequest(s.port, req('GET /e/x/y HTTP/1.1'));
    assert.equal(r.status, 429);
    assert.equal(r.headers['retry-after'], '2');
    assert.equal(JSON.parse(r.body).error.message, 'slow down');
  } finally {
    await s.close();
  }
  const bad = await doorServer({
    run: () => ({ answer: { status: 200, headers: { 'x-bad': 'caf€' }, body: 'refused' } }),
  });
  try {
    const r = await rawRequest(bad.port, req('GET /e/x/y HTTP/1.1'));
    assert.equal(r.status, 500);
    assert.equal(JSON.parse(r.body).error.code, 'internal_error');
    assert.equal(r.headers['x-bad'], undefined);
    assert.deepEqual(bad.lines, ['GET /e/x/y 500']);
  } finally {
    await bad.close();
  }
});

test('the door writes the request line of what it answers, the URL as sent', async () => {
  const s = await doorServer({});
  try {
    const r = await rawRequest(s.port, req('GET /e/x/y?token=1 HTTP/1.1'));
    assert.equal(r.body, 'door');
    assert.equal(
      (await rawRequest(s.port, `GET /y HTTP/1.1\r\nHost: x.${BASE}\r\nConnection: close\r\n\r\n`)).body,
      'door',
    );
    assert.deepEqual(s.lines, ['GET /e/x/y?token=1 200', 'GET /y 200']);
    // Not an endpoint's: a path outside the path form on a host that names none.
    assert.equal((await rawRequest(s.port, req('GET /x HTTP/1.1'))).body, 'fastify');
    assert.deepEqual(s.plane.stats(), { served: 2, faultsHeld: 0 });
  } finally {
    await s.close();
  }
});

test('once closing, every endpoint request is answered 503; a real server answers 503 then', async () => {
  const s = await doorServer({});
  try {
    s.plane.close();
    const r = await rawRequest(s.port, req('GET /e/x/y HTTP/1.1'));
    assert.equal(r.status, 503);
    assert.equal(JSON.parse(r.body).error.code, 'shutting_down');
    assert.equal(r.headers['connection'], 'close');
    assert.match(r.headers['content-security-policy'] ?? '', /^sandbox /);
    assert.deepEqual(s.plane.stats(), { served: 1, faultsHeld: 0 });
  } finally {
    await s.close();
  }
  // The app: a request pipelined behind one the server is still reading when close() is called is
  // answered 503 (without the door's close, it would be answered 200).
  const closing = await startApp({}, { listen: true });
  try {
    const sock = connect(closing.port, '127.0.0.1');
    let data = '';
    sock.on('data', (d: Buffer) => (data += d.toString('latin1')));
    const ended = new Promise((r) => sock.on('close', r));
    await once(sock, 'connect');
    sock.write('POST /e/echo/slow HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab');
    await new Promise((r) => setTimeout(r, 100));
    const closed = closing.close();
    await new Promise((r) => setTimeout(r, 200));
    sock.write('cdGET /e/echo/after HTTP/1.1\r\nHost: x\r\n\r\n');
    await ended;
    await closed;
    const statuses = [...data.matchAll(/HTTP\/1\.1 (\d+)/g)].map((m) => m[1]);
    assert.deepEqual(statuses, ['200', '503'], data);
  } finally {
    await closing.stop();
  }
});
