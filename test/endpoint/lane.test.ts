/**
 * The endpoint lane (src/endpoint/lane.ts) answers what Fastify's endpoint routes would, byte for
 * byte: two servers, one with the lane and one without, get the same requests over sockets and give
 * the same raw responses (Date and the rate-limit window aside) and the same history. Which requests
 * the lane answered, handed over or left to Fastify is checked too, or the comparison could pass with
 * a lane that never ran. Then the lane alone, on a stand-in lifecycle: a failure reaches Fastify's
 * error handler, and while closing every request goes to Fastify.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { startApp, type TestApp } from '../helpers/app.js';
import { rawRequest, type RawResponse } from '../helpers/raw.js';
import { call, createEndpoint } from '../api/api-helpers.js';
import { endpointLane, type Lifecycle } from '../../src/endpoint/index.js';
import { handedOver } from '../../src/endpoint/hand-over.js';

const BASE = 'mock.test';
let withLane: TestApp;
let without: TestApp;

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
  const config = { bodyLimit: 64, baseDomain: BASE };
  withLane = await startApp(config, { listen: true });
  without = await startApp(config, { listen: true, lane: false });
  await setUp(withLane);
  await setUp(without);
});
after(async () => {
  await withLane.stop();
  await without.stop();
});

const req = (head: string, body = ''): string =>
  `${head}\r\nHost: x\r\nConnection: close\r\n${body ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`;

/** Each request, and who takes it in the lane's server: answered, handed over, or Fastify's alone. */
const REQUESTS: [string, 'answered' | 'handed over' | 'fastify'][] = [
  [req('GET /e/echo/a?b=1&b=2 HTTP/1.1'), 'answered'],
  [req('POST /e/echo/p HTTP/1.1\r\nContent-Type: application/json', '{"x":1}'), 'answered'],
  [req('POST /e/echo/big HTTP/1.1\r\nContent-Type: text/plain', 'y'.repeat(100)), 'answered'],
  [req('HEAD /e/echo/h HTTP/1.1'), 'handed over'],
  [req('GET /e/ECHO/upper HTTP/1.1'), 'answered'],
  [req('PROPFIND /e/echo/dav HTTP/1.1'), 'answered'],
  [
    req('OPTIONS /e/echo/o HTTP/1.1\r\nOrigin: http://a.example\r\nAccess-Control-Request-Method: PUT'),
    'handed over',
  ],
  [req('GET /e/echo/v HTTP/1.1\r\nAccept-Version: 1.x'), 'answered'],
  [req('GET /e/echo/caf%C3%A9?x=%41 HTTP/1.1'), 'fastify'],
  [req('GET /e/echo/%zz HTTP/1.1'), 'fastify'],
  [req('GET /e/echo/q?x=%zz HTTP/1.1'), 'answered'],
  [req('GET /e/nope/x HTTP/1.1'), 'fastify'],
  [req('GET /e/shop/items?q=1 HTTP/1.1'), 'fastify'], // not in the cache yet: read by Fastify's route
  [req('GET /e/shop/items?q=2 HTTP/1.1'), 'answered'],
  [req('GET /e/shop/empty HTTP/1.1'), 'handed over'],
  [req('GET /e/shop/typed HTTP/1.1'), 'handed over'],
  [req('GET /e/shop/nothing HTTP/1.1'), 'answered'],
  [`GET /items?q=3 HTTP/1.1\r\nHost: shop.${BASE}\r\nConnection: close\r\n\r\n`, 'answered'],
  [req('GET /e HTTP/1.1'), 'fastify'],
  [req('GET /e/ HTTP/1.1'), 'fastify'],
  [req('GET /api/v2/endpoints HTTP/1.1'), 'fastify'],
];

const comparable = (r: RawResponse): string =>
  r.raw.replace(/^Date: .*\r\n/im, '').replace(/^(x-ratelimit-reset): \d+\r\n/im, '$1: *\r\n');

test('the lane answers every request as Fastify does, and records the same history', async () => {
  for (const [request, taker] of REQUESTS) {
    const before = withLane.lane!.stats();
    const a = await rawRequest(withLane.port, request);
    const b = await rawRequest(without.port, request);
    const line = request.slice(0, request.indexOf('\r\n'));
    assert.equal(comparable(a), comparable(b), line);
    const after = withLane.lane!.stats();
    const took =
      after.answered > before.answered
        ? 'answered'
        : after.handedOver > before.handedOver
          ? 'handed over'
          : 'fastify';
    assert.equal(took, taker, `${line}: ${a.status}`);
  }
  assert.equal(without.lane, undefined);
  for (const ep of ['echo', 'shop']) {
    const entries = async (app: TestApp) => {
      await app.ctx.history.flush();
      return (await app.ctx.store.listHistory(ep, {}, 100)).data.map((e) => ({
        method: e.method,
        path: e.path,
        status: e.status,
        behavior: e.behavior,
        ruleMatched: e.ruleMatched,
        requestHeaders: e.requestHeaders,
        requestBody: e.requestBody,
        responseHeaders: { ...e.responseHeaders, 'x-ratelimit-reset': '*' },
        responseBody: e.responseBody,
        problems: e.problems,
      }));
    };
    const recorded = await entries(withLane);
    assert.ok(recorded.length >= 4, `${ep}: ${recorded.length} entries`);
    assert.deepEqual(recorded, await entries(without), ep);
  }
});

/** A server whose requests go through a lane over `lifecycle`, Fastify stood in for by `fastify`. */
async function laneServer(
  lifecycle: Partial<Lifecycle>,
  fastify: (req: IncomingMessage, res: ServerResponse) => void,
) {
  const lines: string[] = [];
  const lane = endpointLane({
    lifecycle: {
      resolve: () => undefined,
      resolveNow: () => ({ endpoint: { name: 'x', createdAt: 0, settings: {} }, pipeline: { steps: [] } }),
      run: () => ({ answer: { status: 200, headers: { 'content-type': 'text/plain' }, body: 'lane' } }),
      ...lifecycle,
    },
    rewrite: (r) => r.url ?? '/',
    methods: ['GET'],
    log: (r, url, status) => lines.push(`${r.method} ${url} ${status}`),
    fastify,
  });
  const server = createServer(lane.handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { lane, lines, port, close: () => new Promise((r) => server.close(r)) };
}

/** Fastify stood in: answers what was handed over (its error as a 500), or 'fastify'. */
function standIn(req: IncomingMessage, res: ServerResponse): void {
  let body = 'fastify';
  try {
    const d = handedOver(req);
    if (d?.answer) body = `handed over ${d.answer.status}`;
  } catch (err) {
    body = `error handler: ${(err as Error).message}`;
    res.writeHead(500, { 'content-length': Buffer.byteLength(body) }).end(body);
    return;
  }
  res.writeHead(200, { 'content-length': Buffer.byteLength(body) }).end(body);
}

test('a lifecycle that throws or rejects is answered by Fastify, with the error', async () => {
  for (const run of [
    () => {
      throw new Error('thrown');
    },
    () => Promise.reject(new Error('rejected')),
  ]) {
    const s = await laneServer({ run }, standIn);
    try {
      const r = await rawRequest(s.port, req('GET /e/x/y HTTP/1.1'));
      assert.equal(r.status, 500);
      assert.match(r.body, /^error handler: (thrown|rejected)$/);
      assert.deepEqual(s.lane.stats(), { answered: 0, handedOver: 1 });
      assert.deepEqual(s.lines, []); // Fastify writes the line of what it answers
    } finally {
      await s.close();
    }
  }
});

test('the lane writes the request line of what it answers, the URL as sent', async () => {
  const s = await laneServer({}, standIn);
  try {
    const r = await rawRequest(s.port, req('GET /e/x/y?token=1 HTTP/1.1'));
    assert.equal(r.body, 'lane');
    assert.deepEqual(s.lines, ['GET /e/x/y?token=1 200']);
    // Not ours: a method the routes do not take, a path outside the path form.
    assert.equal((await rawRequest(s.port, req('POST /e/x/y HTTP/1.1', 'b'))).body, 'fastify');
    assert.equal((await rawRequest(s.port, req('GET /x HTTP/1.1'))).body, 'fastify');
    assert.deepEqual(s.lane.stats(), { answered: 1, handedOver: 0 });
  } finally {
    await s.close();
  }
});

test('once closing, every request goes to Fastify; a real server answers 503 then', async () => {
  const s = await laneServer({}, standIn);
  try {
    s.lane.close();
    assert.equal((await rawRequest(s.port, req('GET /e/x/y HTTP/1.1'))).body, 'fastify');
    assert.deepEqual(s.lane.stats(), { answered: 0, handedOver: 0 });
  } finally {
    await s.close();
  }
  // The app: a request pipelined behind one the server is still reading when close() is called is
  // answered 503 by Fastify (without the lane's close, the lane would answer it 200).
  const app = await startApp({}, { listen: true });
  try {
    const sock = connect(app.port, '127.0.0.1');
    let data = '';
    sock.on('data', (d: Buffer) => (data += d.toString('latin1')));
    const ended = new Promise((r) => sock.on('close', r));
    await once(sock, 'connect');
    sock.write('POST /e/echo/slow HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab');
    await new Promise((r) => setTimeout(r, 100));
    const closing = app.close();
    await new Promise((r) => setTimeout(r, 200));
    sock.write('cdGET /e/echo/after HTTP/1.1\r\nHost: x\r\n\r\n');
    await ended;
    await closing;
    const statuses = [...data.matchAll(/HTTP\/1\.1 (\d+)/g)].map((m) => m[1]);
    assert.deepEqual(statuses, ['200', '503'], data);
  } finally {
    await app.stop();
  }
});
