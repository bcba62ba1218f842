/**
 * The steps that guard a user endpoint before its rules (SPEC §5 steps 1–2): the security header
 * (562), the endpoint's fixed-window rate limit (429), and the endpoint's CORS origins.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryRateLimiter } from '../../src/http/index.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { endpointRequest } from '../helpers/endpoint.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';

function send(app: TestApp, path: string, headers: Record<string, string> = {}, method = 'GET') {
  return endpointRequest(app, 'guarded', path, { method, headers });
}

async function history(app: TestApp) {
  await app.ctx.history.flush();
  return (await app.ctx.store.listHistory('guarded', {}, 100)).data;
}

test('security: a missing or wrong header is 562 text/plain, recorded as rejected; the right one passes', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'guarded');
    await call(app, 'PATCH', '/endpoints/guarded/settings', {
      security: { enabled: true, headerKey: 'X-Token', headerValue: 's3cret' },
    });
    const missing = await send(app, '/a');
    assert.equal(missing.statusCode, 562);
    assert.match(String(missing.headers['content-type']), /^text\/plain/);
    assert.match(missing.body, /X-Token/);
    assert.equal((await send(app, '/b', { 'x-token': 's3cre' })).statusCode, 562);
    assert.equal((await send(app, '/c', { 'x-token': 's3cret!' })).statusCode, 562);
    const ok = await send(app, '/d', { 'x-token': 's3cret' });
    assert.equal(ok.statusCode, 200);
    const entries = await history(app);
    assert.deepEqual(entries.map((e) => [e.path, e.status, e.behavior]).sort(), [
      ['/a', 562, 'rejected'],
      ['/b', 562, 'rejected'],
      ['/c', 562, 'rejected'],
      ['/d', 200, 'default'],
    ]);
    await call(app, 'PATCH', '/endpoints/guarded/settings', { security: { enabled: false } });
    assert.equal((await send(app, '/e')).statusCode, 200);
  } finally {
    await app.stop();
  }
});

for (const [period, ms] of [
  ['Second', 1000],
  ['Minute', 60_000],
  ['Hour', 3_600_000],
] as const) {
  test(`rate limit per ${period}: rate − 1 and rate pass, rate + 1 is 429 until the window ends`, async () => {
    let now = Date.UTC(2026, 10, 23, 10, 0, 0);
    const app = await startApp({}, { limiter: new MemoryRateLimiter(() => now), now: () => now });
    try {
      await createEndpoint(app, 'guarded');
      await call(app, 'PATCH', '/endpoints/guarded/settings', {
        rateLimit: { enabled: true, rate: 3, period },
      });
      for (let i = 0; i < 3; i++) assert.equal((await send(app, `/ok${i}`)).statusCode, 200);
      const over = await send(app, '/over');
      assert.equal(over.statusCode, 429);
      assert.equal(JSON.parse(over.body).error.code, 'rate_limited');
      assert.equal(over.headers['x-ratelimit-limit'], '3');
      assert.equal(over.headers['x-ratelimit-remaining'], '0');
      assert.equal(over.headers['x-ratelimit-reset'], String((now + ms) / 1000));
      assert.equal(over.headers['retry-after'], String(ms / 1000));
      now += ms - 1;
      assert.equal((await send(app, '/still')).statusCode, 429);
      now += 1;
      assert.equal((await send(app, '/next')).statusCode, 200);
      const rejected = (await history(app)).filter((e) => e.behavior === 'rejected').map((e) => e.path);
      assert.deepEqual(rejected.sort(), ['/over', '/still']);
    } finally {
      await app.stop();
    }
  });
}

test('cors.origins: allowed origins get their own origin back, others none; preflights pass security', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'guarded');
    await call(app, 'PATCH', '/endpoints/guarded/settings', {
      cors: { origins: ['https://app.example.com'] },
      security: { enabled: true, headerKey: 'x-token', headerValue: 'k' },
    });
    const pre = await send(
      app,
      '/users',
      {
        origin: 'https://app.example.com',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'x-token',
      },
      'OPTIONS',
    );
    assert.equal(pre.statusCode, 204);
    assert.equal(pre.headers['access-control-allow-origin'], 'https://app.example.com');
    assert.match(String(pre.headers['access-control-allow-methods']), /PUT/);
    assert.equal(pre.headers['access-control-allow-headers'], 'x-token');
    const ok = await send(app, '/users', { origin: 'https://app.example.com', 'x-token': 'k' });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['access-control-allow-origin'], 'https://app.example.com');
    assert.equal(ok.headers['vary'], 'Origin');
    const refused = await send(app, '/users', { origin: 'https://evil.example.com', 'x-token': 'k' });
    assert.equal(refused.statusCode, 200);
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
    const rejected = await send(app, '/users', { origin: 'https://app.example.com' });
    assert.equal(rejected.statusCode, 562);
    assert.equal(rejected.headers['access-control-allow-origin'], 'https://app.example.com');
  } finally {
    await app.stop();
  }
});

test('without cors.origins an endpoint sends no CORS headers and answers a preflight like any request', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'guarded');
    const r = await send(
      app,
      '/x',
      { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
      'OPTIONS',
    );
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['access-control-allow-origin'], undefined);
  } finally {
    await app.stop();
  }
});
