/**
 * The client's TOTP helper under the TOTP rate limit: a 429 is retried after its Retry-After, and a
 * call makes at most `1 + retries` requests (the documented helper once spun on 429s).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Mockingbird, MockingbirdError, TOTP_BUDGET_MS, type FetchLike } from '../../src/client/index.js';
import { startApp, type TestApp } from '../helpers/app.js';

const SECRET = 'JBSWY3DPEHPK3PXP';

let app: TestApp;
before(async () => {
  app = await startApp({ totpRateLimit: 2 }, { listen: true });
});
after(async () => app.stop());

/** A fetch that counts the requests it sends. */
function counting(): { fetch: FetchLike; count: () => number } {
  let n = 0;
  return {
    fetch: (input, init) => {
      n++;
      return fetch(input, init);
    },
    count: () => n,
  };
}

test('against the real rate limit: 1 + retries requests, each wait the Retry-After the server sent', async () => {
  const waits: number[] = [];
  const c = counting();
  const mb = new Mockingbird({
    baseUrl: app.url,
    fetch: c.fetch,
    // Instant waits: the window does not reset, so every attempt meets a 429.
    sleep: async (ms) => {
      waits.push(ms);
    },
    // The server's Retry-After is up to 60 s: a budget that allows the three waits (the 4 s default
    // is tested below).
    totp: { retries: 3, budgetMs: 600_000, onRateLimitWait: () => undefined },
  });
  const { id } = await mb.totp.register({ secret: SECRET }); // 1 of 2
  await mb.totp.code(id); // 2 of 2
  assert.equal(c.count(), 2);
  const before = c.count();
  await assert.rejects(mb.totp.code(id), (err: unknown) => {
    assert.ok(err instanceof MockingbirdError);
    assert.equal(err.status, 429);
    assert.equal(err.code, 'rate_limited');
    assert.ok(err.retryAfter !== undefined && err.retryAfter >= 1 && err.retryAfter <= 60);
    return true;
  });
  assert.equal(c.count() - before, 4, '1 + 3 retries');
  assert.equal(waits.length, 3);
  for (const w of waits) assert.ok(w >= 1000 && w <= 60_000, `waited ${w} ms`);

  const again = c.count();
  await assert.rejects(mb.totp.code(id, { retries: 0 }), /More than 2 TOTP requests/);
  assert.equal(c.count() - again, 1, 'retries: 0 makes one request');
});

test('a Retry-After longer than maxRetryWaitMs fails at once, after one request', async () => {
  const c = counting();
  const slept: number[] = [];
  const mb = new Mockingbird({
    baseUrl: app.url,
    fetch: c.fetch,
    sleep: async (ms) => {
      slept.push(ms);
    },
    totp: { retries: 5, maxRetryWaitMs: 0 },
  });
  await assert.rejects(mb.totp.register({ secret: SECRET }), (e: unknown) => e instanceof MockingbirdError);
  assert.equal(c.count(), 1);
  assert.deepEqual(slept, []);
});

test('the wait is real: two 429s with Retry-After 1, then the code, in 3 requests and about 2 s', async () => {
  let n = 0;
  const fake: FetchLike = async () => {
    n++;
    if (n <= 2)
      return new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }), {
        status: 429,
        headers: { 'retry-after': '1', 'content-type': 'application/json' },
      });
    return Response.json({ id: 'x', otp: '123456', expiresAt: new Date(Date.now() + 20_000).toISOString() });
  };
  const mb = new Mockingbird({ baseUrl: 'http://127.0.0.1:9', fetch: fake, totp: { retries: 2 } });
  const started = Date.now();
  assert.equal(await mb.totp.freshCode('x'), '123456');
  const took = Date.now() - started;
  assert.equal(n, 3);
  assert.ok(took >= 1900 && took < 5000, `took ${took} ms`);
});

test('freshCode answers the next step when the current one ends too soon', async () => {
  const asked: string[] = [];
  const end = Date.now() + 1000;
  const fake: FetchLike = async (input) => {
    const url = new URL(String(input));
    asked.push(url.search);
    const at = url.searchParams.get('at');
    return Response.json({
      id: 'x',
      otp: at ? '222222' : '111111',
      expiresAt: new Date(at ? end + 30_000 : end).toISOString(),
    });
  };
  const mb = new Mockingbird({ baseUrl: 'http://127.0.0.1:9', fetch: fake });
  assert.equal(await mb.totp.freshCode('x', { minValidityMs: 5000 }), '222222');
  assert.ok(Date.now() >= end, 'answered once the next step began');
  assert.equal(asked.length, 2);
  assert.equal(asked[1], `?at=${encodeURIComponent(new Date(end).toISOString())}`);
});

test('no TOTP call waits past its budget: a Retry-After beyond it fails at once, after one request', async () => {
  let n = 0;
  const fake: FetchLike = async () => {
    n++;
    return new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }), {
      status: 429,
      headers: { 'retry-after': String(TOTP_BUDGET_MS / 1000 + 1), 'content-type': 'application/json' },
    });
  };
  const said: number[] = [];
  const mb = new Mockingbird({
    baseUrl: 'http://127.0.0.1:9',
    fetch: fake,
    sleep: async () => assert.fail('no wait beyond the budget'),
    totp: { retries: 5, onRateLimitWait: (ms) => said.push(ms) },
  });
  const started = Date.now();
  await assert.rejects(mb.totp.register({ secret: SECRET }), (e: unknown) => {
    assert.ok(e instanceof MockingbirdError);
    assert.equal(e.status, 429);
    return true;
  });
  assert.ok(Date.now() - started < 1000);
  assert.equal(n, 1);
  assert.deepEqual(said, []);
  // A Retry-After just inside the budget is waited for.
  n = 0;
  const inside: FetchLike = async () =>
    ++n === 1
      ? new Response('{"error":{"code":"rate_limited","message":"x"}}', {
          status: 429,
          headers: { 'retry-after': '3' },
        })
      : Response.json({ id: 'x', otp: '123456', expiresAt: new Date(Date.now() + 20_000).toISOString() });
  const slept: number[] = [];
  const ok = new Mockingbird({
    baseUrl: 'http://127.0.0.1:9',
    fetch: inside,
    sleep: async (ms) => void slept.push(ms),
    totp: { onRateLimitWait: () => undefined },
  });
  assert.equal((await ok.totp.code('x')).otp, '123456');
  assert.deepEqual(slept, [3000]);
});

test('each wait on the rate limit is said, and the waits within the budget are made', async () => {
  let n = 0;
  const fake: FetchLike = async () => {
    n++;
    if (n === 1)
      return new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }), {
        status: 429,
        headers: { 'retry-after': '1', 'content-type': 'application/json' },
      });
    return Response.json({ id: 'x', otp: '123456', expiresAt: new Date(Date.now() + 20_000).toISOString() });
  };
  const said: number[] = [];
  const mb = new Mockingbird({
    baseUrl: 'http://127.0.0.1:9',
    fetch: fake,
    totp: { onRateLimitWait: (ms) => said.push(ms) },
  });
  assert.equal((await mb.totp.code('x')).otp, '123456');
  assert.deepEqual(said, [1000]);
  // The default says it on stderr.
  const lines: string[] = [];
  const warn = console.warn;
  console.warn = (line: string) => void lines.push(line);
  try {
    n = 0;
    const quiet = new Mockingbird({ baseUrl: 'http://127.0.0.1:9', fetch: fake });
    await quiet.totp.code('x');
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(lines, ['mockingbird client: the TOTP API is rate limited (429); waiting 1 s as it asks']);
});

test('freshCode never waits past the budget for the next step; by default it needs 3 s of validity', async () => {
  const end = Date.now() + 2500;
  const fake: FetchLike = async (input) => {
    const at = new URL(String(input)).searchParams.get('at');
    return Response.json({
      id: 'x',
      otp: at ? '222222' : '111111',
      expiresAt: new Date(at ? end + 30_000 : end).toISOString(),
    });
  };
  const mb = new Mockingbird({ baseUrl: 'http://127.0.0.1:9', fetch: fake });
  // 2.5 s left is less than the default 3 s: the next step's code, within the 4 s budget.
  const started = Date.now();
  assert.equal(await mb.totp.freshCode('x'), '222222');
  assert.ok(Date.now() - started < TOTP_BUDGET_MS);
  // A wait longer than the budget fails at once and says what to change.
  const far = Date.now() + 3500;
  const slow: FetchLike = async () =>
    Response.json({ id: 'x', otp: '333333', expiresAt: new Date(far).toISOString() });
  const client = new Mockingbird({ baseUrl: 'http://127.0.0.1:9', fetch: slow });
  const t0 = Date.now();
  await assert.rejects(
    client.totp.freshCode('x', { minValidityMs: 5000, budgetMs: 1000 }),
    /would pass the budget of 1000 ms/,
  );
  assert.ok(Date.now() - t0 < 500);
});
