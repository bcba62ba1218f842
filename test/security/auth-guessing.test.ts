/**
 * Stops: an unauthenticated client guessing API keys at full speed (issue 11, item 7). Failed
 * authentications are counted per client IP; past AUTH_FAILURE_LIMIT a minute every attempt from that IP
 * is 429 with Retry-After until the minute ends, the right key included; other IPs are not affected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryRateLimiter } from '../../src/http/index.js';
import { adminAuth, startApp } from '../helpers/app.js';

test('limit − 1 and limit failures are 401, the next attempt is 429 even with the right key, until the window ends', async () => {
  let now = Date.UTC(2026, 10, 23, 10, 0, 0);
  const app = await startApp(
    { authFailureLimit: 5 },
    { limiter: new MemoryRateLimiter(() => now), now: () => now },
  );
  try {
    const get = (headers: Record<string, string>, remoteAddress = '10.0.0.1') =>
      app.inject({ method: 'GET', url: '/api/v2/endpoints', headers, remoteAddress });
    for (let i = 0; i < 5; i++) {
      const r = await get({ authorization: `mb_wrong_${i}` });
      assert.equal(r.statusCode, 401, `attempt ${i + 1}`);
    }
    const over = await get({ authorization: 'mb_wrong_again' });
    assert.equal(over.statusCode, 429);
    assert.equal(JSON.parse(over.body).error.code, 'rate_limited');
    assert.equal(over.headers['retry-after'], '60');
    const right = await get(adminAuth);
    assert.equal(right.statusCode, 429, 'the right key is refused too while the IP is over its limit');
    assert.equal((await get(adminAuth, '10.0.0.2')).statusCode, 200, 'another IP is not affected');
    now += 60_000;
    assert.equal((await get(adminAuth)).statusCode, 200, 'a new window lets the IP in again');
  } finally {
    await app.stop();
  }
});

test('missing keys count as failures too; successful calls do not', async () => {
  const app = await startApp({ authFailureLimit: 2 });
  try {
    const get = (headers: Record<string, string>) =>
      app.inject({ method: 'GET', url: '/api/v2/endpoints', headers, remoteAddress: '10.0.0.9' });
    for (let i = 0; i < 10; i++) assert.equal((await get(adminAuth)).statusCode, 200);
    assert.equal((await get({})).statusCode, 401);
    assert.equal((await get({})).statusCode, 401);
    assert.equal((await get({})).statusCode, 429);
  } finally {
    await app.stop();
  }
});
