/**
 * The echo's rate limit per client IP (SPEC §2, ECHO_RATE_LIMIT): requests up to the limit pass with
 * X-RateLimit-* headers; the next one gets 429 with Retry-After, the headers and the JSON error body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { MemoryRateLimiter } from '../../src/http/index.js';

void describe('echo rate limit', () => {
  const LIMIT = 3;
  let app: TestApp;
  let clock = Date.UTC(2026, 0, 1, 12, 0, 10);
  before(async () => {
    app = await startApp(
      { echoRateLimit: LIMIT },
      { limiter: new MemoryRateLimiter(() => clock), now: () => clock },
    );
  });
  after(async () => {
    await app.stop();
  });

  const hit = (ip?: string) =>
    app.inject({
      method: 'GET',
      url: '/e/echo/limited',
      headers: ip ? { 'x-forwarded-for': ip } : {},
    });

  void it('lets limit − 1 and limit requests pass, refusing limit + 1 with 429', async () => {
    const resetAt = String(Date.UTC(2026, 0, 1, 12, 1, 0) / 1000);
    for (let i = 1; i <= LIMIT; i++) {
      const res = await hit();
      assert.equal(res.statusCode, 200, `request ${i}`);
      assert.equal(res.headers['x-ratelimit-limit'], String(LIMIT));
      assert.equal(res.headers['x-ratelimit-remaining'], String(LIMIT - i));
      assert.equal(res.headers['x-ratelimit-reset'], resetAt);
      assert.equal(res.headers['retry-after'], undefined);
    }
    const res = await hit();
    assert.equal(res.statusCode, 429);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['x-ratelimit-limit'], String(LIMIT));
    assert.equal(res.headers['x-ratelimit-remaining'], '0');
    // Epoch seconds of the end of the window, and the seconds left until then.
    assert.equal(res.headers['x-ratelimit-reset'], resetAt);
    assert.equal(res.headers['retry-after'], '50');
    const body = res.json();
    assert.equal(body.error.code, 'rate_limited');
    assert.equal(typeof body.error.message, 'string');
  });

  void it('keeps refusing within the window, also preflights and other methods', async () => {
    assert.equal((await hit()).statusCode, 429);
    const post = await app.inject({ method: 'POST', url: '/e/echo/x', payload: 'x' });
    assert.equal(post.statusCode, 429);
    const pre = await app.inject({
      method: 'OPTIONS',
      url: '/e/echo/x',
      headers: { 'access-control-request-method': 'GET' },
    });
    assert.equal(pre.statusCode, 429);
  });

  void it('counts per client IP', async () => {
    // Without TRUST_PROXY every injected request comes from 127.0.0.1, X-Forwarded-For or not.
    assert.equal((await hit('198.51.100.1')).statusCode, 429);
  });

  void it('lets requests through again once the window is over', async () => {
    clock += 60_000;
    const res = await hit();
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-ratelimit-remaining'], String(LIMIT - 1));
  });

  void it('does not limit the API or other endpoints with the echo limit', async () => {
    for (let i = 0; i < LIMIT; i++) await hit();
    assert.equal((await hit()).statusCode, 429);
    const other = await app.inject({ method: 'GET', url: '/e/nope-endpoint/x' });
    assert.equal(other.statusCode, 404);
  });
});

void describe('echo rate limit behind a trusted proxy', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ echoRateLimit: 1, trustProxy: true });
  });
  after(async () => {
    await app.stop();
  });

  void it('counts each forwarded client separately', async () => {
    const as = (ip: string) =>
      app.inject({ method: 'GET', url: '/e/echo/', headers: { 'x-forwarded-for': ip } });
    assert.equal((await as('203.0.113.1')).statusCode, 200);
    assert.equal((await as('203.0.113.1')).statusCode, 429);
    assert.equal((await as('203.0.113.2')).statusCode, 200);
    const refused = await as('203.0.113.2, 10.0.0.1');
    assert.equal(refused.statusCode, 429);
    assert.match(refused.json().error.message, /203\.0\.113\.2/);
  });
});

void describe('echo rate limit default', () => {
  void it('is 1000 requests a minute', async () => {
    const app = await startApp();
    try {
      const res = await app.inject({ method: 'GET', url: '/e/echo/' });
      assert.equal(res.headers['x-ratelimit-limit'], '1000');
      assert.equal(res.headers['x-ratelimit-remaining'], '999');
    } finally {
      await app.stop();
    }
  });
});
