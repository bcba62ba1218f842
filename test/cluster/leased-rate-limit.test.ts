/**
 * The echo's limiter counted in leases (src/cluster/leased-rate-limit.ts) on a redis-server of the
 * test's own: one instance decides exactly as MemoryRateLimiter (the contract suite); over several,
 * the hits let through never exceed the limit and fall short of it by at most 1.5 blocks per other
 * instance; a lease spares the round trips; Redis stopped, it counts in memory and comes back by itself.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { LeasedRateLimiter, leaseBlock, type SharedWindows } from '../../src/cluster/index.js';
import type { RateDecision } from '../../src/http/index.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { redisServerSkip, startRedisServer, type TestRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';
import { rateLimiterContract } from '../http/rate-limiter.contract.js';
import { instanceOn, type Instance } from './shared-limits.js';

/** Counts the reservations (Redis round trips) a limiter makes. */
function countReservations(w: SharedWindows): { n: number } {
  const calls = { n: 0 };
  const reserve = w.reserve.bind(w);
  w.reserve = (...args) => {
    calls.n++;
    return reserve(...args);
  };
  return calls;
}

suiteOrSkip('LeasedRateLimiter (Redis)', redisServerSkip, () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    await redis?.stop();
  });
  let seq = 0;
  const key = (k: string): string => `${k}:${++seq}`;
  const leased = (): Promise<Instance<LeasedRateLimiter>> =>
    instanceOn(redis.url, (w) => new LeasedRateLimiter(w));

  rateLimiterContract('redis, leased (one instance)', async (now) => {
    const i = await instanceOn(redis.url, (w) => new LeasedRateLimiter(w, now), { clock: now });
    return { hit: (k, l, w) => i.limiter.hit(k, l, w), close: () => i.close() };
  });

  it('blocks: 2% of the limit, at least 1, at most 100', () => {
    assert.deepEqual([1, 10, 99, 100, 1000, 5000, 10_000_000].map(leaseBlock), [1, 1, 1, 2, 20, 100, 100]);
  });

  it('one instance: exact decisions at limit − 1, limit, limit + 1 with blocks of 20, a round trip per half block', async () => {
    const a = await leased();
    const calls = countReservations(a.windows);
    try {
      const k = key('one');
      const got: RateDecision[] = [];
      for (let n = 0; n < 1001; n++) got.push(await a.limiter.hit(k, 1000, 60_000));
      assert.deepEqual(
        got.slice(998).map((d) => [d.allowed, d.remaining]),
        [
          [true, 1],
          [true, 0],
          [false, 0],
        ],
      );
      assert.ok(
        got.every((d, n) => d.remaining === Math.max(0, 999 - n)),
        'remaining counts down by one',
      );
      assert.ok(calls.n <= 1000 / 10 + 2, `${calls.n} round trips for 1001 hits`);
      const more = calls.n;
      for (let n = 0; n < 50; n++) assert.equal((await a.limiter.hit(k, 1000, 60_000)).allowed, false);
      assert.equal(calls.n, more, 'a full window is refused in memory');
    } finally {
      await a.close();
    }
  });

  it('a steady client waits only for its first hit of the window', async () => {
    const a = await leased();
    try {
      const k = key('steady');
      assert.ok(a.limiter.hit(k, 10_000, 60_000) instanceof Promise, 'the first hit reserves');
      await a.limiter.hit(k, 10_000, 60_000);
      let waited = 0;
      // A hit a millisecond: half a block (50 hits) lasts far longer than a round trip to Redis.
      for (let n = 0; n < 300; n++) {
        const d = a.limiter.hit(k, 10_000, 60_000);
        if (d instanceof Promise) {
          waited++;
          await d;
        } else await new Promise((r) => setTimeout(r, 1));
      }
      assert.equal(waited, 0);
    } finally {
      await a.close();
    }
  });

  it('three instances racing: never more than the limit, short of it by at most 1.5 blocks per other instance', async () => {
    const all = [await leased(), await leased(), await leased()];
    try {
      for (const limit of [10, 1000]) {
        const k = key('race');
        const hits: Array<Promise<RateDecision>> = [];
        for (let n = 0; n < limit + 300; n++)
          hits.push(Promise.resolve(all[n % 3]!.limiter.hit(k, limit, 60_000)));
        const allowed = (await Promise.all(hits)).filter((d) => d.allowed).length;
        assert.ok(allowed <= limit, `${allowed} let through, limit ${limit}`);
        assert.ok(allowed >= limit - 2 * 1.5 * leaseBlock(limit), `${allowed} let through, limit ${limit}`);
      }
    } finally {
      for (const i of all) await i.close();
    }
  });

  it('Redis stopped: counted in memory at once, degraded; restarted: leases again by itself', async () => {
    const a = await leased();
    try {
      await redis.stop();
      const k = key('outage');
      await a.limiter.hit(k, 3, 60_000);
      const d = a.limiter.hit(k, 3, 60_000);
      assert.ok(!(d instanceof Promise), 'answered from memory without waiting');
      assert.equal(d.remaining, 1, "the instance's own window");
      assert.equal(a.status.get('rate_limits')?.state, 'degraded');
      await redis.start();
      await until(() => a.windows.shared, 5000, 'not shared again');
      assert.equal(a.status.get('rate_limits')?.state, 'up');
      const k2 = key('back');
      assert.ok(a.limiter.hit(k2, 3, 60_000) instanceof Promise, 'reserving in Redis again');
      const c = redis.client();
      assert.equal((await c.keys(`mockingbird:rl:${k2}:*`)).length, 1);
    } finally {
      await a.close();
    }
  });
});
