/** TOTP_RATE_LIMIT per client IP over the TOTP API (429 with its headers), and CORS open to any origin. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import type { Config } from '../../src/config.js';
import { MemoryRateLimiter } from '../../src/http/index.js';
import { startTotpApp } from './helpers.js';

// A frozen clock, 15 s into a minute: the fixed window cannot roll over mid-test.
const NOW = Date.parse('2026-05-15T02:46:15.000Z');
const limitedApp = (overrides: Partial<Config>) =>
  startApp(overrides, { now: () => NOW, limiter: new MemoryRateLimiter(() => NOW) });

const SECRET = 'JBSWY3DPEHPK3PXP';

function post(app: TestApp, remoteAddress = '127.0.0.1', headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/2FA/TOTP/',
    payload: { secret: SECRET },
    remoteAddress,
    headers,
  });
}

void test('limit − 1 and limit requests pass with X-RateLimit-*, limit + 1 is 429 with Retry-After', async () => {
  const app = await limitedApp({ totpRateLimit: 3 });
  try {
    const first = await post(app);
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['x-ratelimit-limit'], '3');
    assert.equal(first.headers['x-ratelimit-remaining'], '2');
    const id = first.json().id as string;
    // GET and POST share the budget.
    const second = await app.inject({ method: 'GET', url: `/2FA/TOTP/${id}` });
    assert.equal(second.statusCode, 200);
    assert.equal(second.headers['x-ratelimit-remaining'], '1');
    const third = await post(app);
    assert.equal(third.statusCode, 200);
    assert.equal(third.headers['x-ratelimit-remaining'], '0');

    const over = await post(app);
    assert.equal(over.statusCode, 429);
    assert.equal(over.json().error.code, 'rate_limited');
    assert.equal(over.headers['x-ratelimit-limit'], '3');
    assert.equal(over.headers['x-ratelimit-remaining'], '0');
    assert.equal(over.headers['x-ratelimit-reset'], String(Date.parse('2026-05-15T02:47:00Z') / 1000));
    assert.equal(over.headers['retry-after'], '45');
    assert.equal(over.headers['access-control-allow-origin'], '*');
    assert.equal(over.headers['content-type'], 'application/json; charset=utf-8');
    // Refused before the body is looked at: a malformed body also gets 429.
    const bad = await app.inject({
      method: 'POST',
      url: '/2FA/TOTP/',
      payload: '{',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(bad.statusCode, 429);
    assert.equal((await app.inject({ method: 'GET', url: `/2FA/TOTP/${id}` })).statusCode, 429);
  } finally {
    await app.stop();
  }
});

void test('the default limit is 10 a minute', async () => {
  const app = await limitedApp({});
  try {
    for (let i = 0; i < 10; i++) assert.equal((await post(app)).statusCode, 200, `request ${i + 1}`);
    assert.equal((await post(app)).statusCode, 429);
  } finally {
    await app.stop();
  }
});

void test('each client IP has its own budget; X-Forwarded-For counts only with TRUST_PROXY', async () => {
  const app = await limitedApp({ totpRateLimit: 1 });
  try {
    assert.equal((await post(app, '10.0.0.1')).statusCode, 200);
    assert.equal((await post(app, '10.0.0.1')).statusCode, 429);
    assert.equal((await post(app, '10.0.0.2')).statusCode, 200);
    // Not trusted: a forged header does not buy a new budget.
    assert.equal((await post(app, '10.0.0.2', { 'x-forwarded-for': '192.0.2.9' })).statusCode, 429);
  } finally {
    await app.stop();
  }
  const proxied = await limitedApp({ totpRateLimit: 1, trustProxy: true });
  try {
    assert.equal((await post(proxied, '10.0.0.1', { 'x-forwarded-for': '192.0.2.1' })).statusCode, 200);
    assert.equal((await post(proxied, '10.0.0.1', { 'x-forwarded-for': '192.0.2.1' })).statusCode, 429);
    assert.equal((await post(proxied, '10.0.0.1', { 'x-forwarded-for': '192.0.2.2' })).statusCode, 200);
  } finally {
    await proxied.stop();
  }
});

void test('preflights, the /2fa page and the echo do not spend the TOTP budget', async () => {
  const app = await limitedApp({ totpRateLimit: 1 });
  try {
    for (let i = 0; i < 3; i++) {
      const pre = await app.inject({
        method: 'OPTIONS',
        url: '/2FA/TOTP/',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(pre.statusCode, 204);
      assert.equal((await app.inject({ method: 'GET', url: '/2fa' })).statusCode, 200);
      assert.equal((await app.inject({ method: 'GET', url: '/e/echo/x' })).statusCode, 200);
    }
    assert.equal((await post(app)).statusCode, 200);
    assert.equal((await post(app)).statusCode, 429);
    assert.equal((await app.inject({ method: 'GET', url: '/e/echo/x' })).statusCode, 200);
  } finally {
    await app.stop();
  }
});

void test('CORS: every answer allows any origin; preflights get 204 with methods, headers and max-age', async () => {
  const app = await startTotpApp();
  try {
    const origin = { origin: 'https://tests.example' };
    const ok = await app.inject({
      method: 'POST',
      url: '/2FA/TOTP/',
      payload: { secret: SECRET },
      headers: origin,
    });
    assert.equal(ok.headers['access-control-allow-origin'], '*');
    assert.match(String(ok.headers['access-control-expose-headers']), /Retry-After/);
    const id = ok.json().id as string;
    for (const url of [
      `/2FA/TOTP/${id}`,
      '/2FA/TOTP/nope',
      '/2FA/TOTP/00000000-0000-4000-8000-000000000000',
    ]) {
      const res = await app.inject({ method: 'GET', url, headers: origin });
      assert.equal(res.headers['access-control-allow-origin'], '*', url);
    }
    // Other methods and deeper paths are 404 with CORS too.
    for (const [method, url] of [
      ['DELETE', `/2FA/TOTP/${id}`],
      ['PUT', '/2FA/TOTP/'],
      ['GET', `/2FA/TOTP/${id}/extra`],
    ] as const) {
      const res = await app.inject({ method, url, headers: origin });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.equal(res.json().error.code, 'not_found');
      assert.equal(res.headers['access-control-allow-origin'], '*', `${method} ${url}`);
    }
    assert.equal((await app.inject({ method: 'GET', url: `/2FA/TOTP/${id}` })).statusCode, 200);
    for (const url of ['/2FA/TOTP/', '/2FA/TOTP', `/2FA/TOTP/${id}`, `/2FA/TOTP/${id}/`]) {
      const pre = await app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          ...origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, x-trace',
        },
      });
      assert.equal(pre.statusCode, 204, url);
      assert.equal(pre.body, '');
      assert.equal(pre.headers['access-control-allow-origin'], '*');
      assert.match(String(pre.headers['access-control-allow-methods']), /GET.*POST/);
      assert.equal(pre.headers['access-control-allow-headers'], 'content-type, x-trace');
      assert.equal(pre.headers['access-control-max-age'], '86400');
    }
  } finally {
    await app.stop();
  }
});
