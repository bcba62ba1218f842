/**
 * Limits counted across instances (issue 33, item 3): two real instances on one PostgreSQL and one
 * Redis count an endpoint's rate limit, the TOTP generator's and the echo's per-IP limits and failed API
 * authentications as one service. Each test sends from an IP of its own (X-Forwarded-For, TRUST_PROXY).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { leaseBlock } from '../../src/cluster/index.js';
import { startCluster, clusterSkip, type Cluster } from '../helpers/cluster.js';
import { suiteOrSkip } from '../helpers/pg.js';

const TOTP_LIMIT = 4;
const AUTH_LIMIT = 3;
const ECHO_LIMIT = 10;

/** Waits, when a minute is about to end, for the next: a minute's window must hold every request of a test. */
async function awayFromMinuteEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5000) await new Promise((r) => setTimeout(r, left + 100));
}

suiteOrSkip('limits counted over two instances', clusterSkip, () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster(2, {
      env: {
        TRUST_PROXY: 'true',
        TOTP_RATE_LIMIT: String(TOTP_LIMIT),
        AUTH_FAILURE_LIMIT: String(AUTH_LIMIT),
        ECHO_RATE_LIMIT: String(ECHO_LIMIT),
      },
    });
    for (const [path, body] of [
      ['/endpoints', { name: 'limited' }],
      ['/endpoints/limited/settings', { rateLimit: { enabled: true, rate: 10, period: 'Minute' } }],
    ] as const) {
      const r = await fetch(`${c.instances[0]!.url}/api/v2${path}`, {
        method: path.endsWith('settings') ? 'PATCH' : 'POST',
        headers: { authorization: c.key, 'content-type': 'application/json', 'x-forwarded-for': '10.9.9.9' },
        body: JSON.stringify(body),
      });
      assert.ok(r.ok, `${path}: ${r.status} ${await r.text()}`);
    }
  });
  after(async () => {
    await c?.stop();
  });

  /** `n` requests alternating A and B, one after the other. */
  async function alternate(
    n: number,
    send: (url: string, i: number) => Promise<Response>,
  ): Promise<Response[]> {
    const out: Response[] = [];
    for (let i = 0; i < n; i++) out.push(await send(c.instances[i % 2]!.url, i));
    return out;
  }

  test('an endpoint limit of 10 a minute: 12 requests alternating A and B, exactly 10 answered, 2 refused', async () => {
    await awayFromMinuteEnd();
    const got = await alternate(12, (url, i) => fetch(`${url}/e/limited/r${i}`));
    const statuses = got.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 429).length, 2, statuses.join());
    assert.deepEqual(statuses.slice(10), [429, 429], statuses.join());
    const resetAt = Math.ceil(Date.now() / 60_000) * 60;
    for (const r of got.slice(10)) {
      assert.equal(r.headers.get('x-ratelimit-limit'), '10');
      assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
      assert.equal(r.headers.get('x-ratelimit-reset'), String(resetAt));
      const retry = Number(r.headers.get('retry-after'));
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'rate_limited');
    }
  });

  test("the TOTP generator's per-IP limit is counted over A and B", async () => {
    await awayFromMinuteEnd();
    const got = await alternate(TOTP_LIMIT + 2, (url) =>
      fetch(`${url}/2FA/TOTP/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.1.1.1' },
        body: JSON.stringify({ secret: 'JBSWY3DPEHPK3PXP' }),
      }),
    );
    assert.deepEqual(
      got.map((r) => [r.status, r.headers.get('x-ratelimit-remaining')]),
      [
        [200, '3'],
        [200, '2'],
        [200, '1'],
        [200, '0'],
        [429, '0'],
        [429, '0'],
      ],
    );
  });

  test('failed authentications are counted over A and B; over the limit, the right key is refused on both', async () => {
    await awayFromMinuteEnd();
    const get = (url: string, key: string): Promise<Response> =>
      fetch(`${url}/api/v2/endpoints`, { headers: { authorization: key, 'x-forwarded-for': '10.2.2.2' } });
    const failures = await alternate(AUTH_LIMIT + 1, (url, i) => get(url, `mb_wrong_key_${i}`));
    assert.deepEqual(
      failures.map((r) => r.status),
      [401, 401, 401, 429],
    );
    // The 429 came from B; A never refused this IP itself, yet it refuses the right key now.
    for (const i of [0, 1])
      assert.equal((await get(c.instances[i]!.url, c.key)).status, 429, `instance ${i}`);
    const other = await fetch(`${c.instances[0]!.url}/api/v2/endpoints`, {
      headers: { authorization: c.key, 'x-forwarded-for': '10.2.2.3' },
    });
    assert.equal(other.status, 200, 'another IP is not affected');
  });

  test("the echo's per-IP limit is counted over A and B in leases: never over it, short by at most 1.5 blocks", async () => {
    await awayFromMinuteEnd();
    const got = await alternate(ECHO_LIMIT + 4, (url) =>
      fetch(`${url}/e/echo/x`, { headers: { 'x-forwarded-for': '10.3.3.3' } }),
    );
    const passed = got.filter((r) => r.status === 200).length;
    assert.ok(passed <= ECHO_LIMIT, `${passed} passed`);
    assert.ok(passed >= ECHO_LIMIT - Math.floor(1.5 * leaseBlock(ECHO_LIMIT)), `${passed} passed`);
    assert.deepEqual(
      got.slice(-2).map((r) => r.status),
      [429, 429],
    );
  });
});
