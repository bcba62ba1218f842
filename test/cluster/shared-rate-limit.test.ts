/**
 * The rate limiter counted in Redis (src/cluster/shared-rate-limit.ts) on a redis-server of the test's
 * own: MemoryRateLimiter's decisions (the contract suite), one count for two instances, windows timed by
 * Redis's clock, and the fallback to each instance's memory while Redis is stopped or paused, back to
 * the shared count by itself when Redis answers again.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { SharedRateLimiter } from '../../src/cluster/index.js';
import type { RateDecision } from '../../src/http/index.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { redisServerSkip, startRedisServer, type TestRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';
import { rateLimiterContract } from '../http/rate-limiter.contract.js';
import { instanceOn, metricValue, type Instance } from './shared-limits.js';

suiteOrSkip('SharedRateLimiter (Redis)', redisServerSkip, () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    await redis?.stop();
  });
  let seq = 0;
  const key = (k: string): string => `${k}:${++seq}`;
  const shared = (commandTimeout?: number): Promise<Instance<SharedRateLimiter>> =>
    instanceOn(redis.url, (w) => new SharedRateLimiter(w), commandTimeout ? { commandTimeout } : {});

  rateLimiterContract('redis, exact', async (now) => {
    const i = await instanceOn(redis.url, (w) => new SharedRateLimiter(w, now), { clock: now });
    return { hit: (k, l, w) => i.limiter.hit(k, l, w), close: () => i.close() };
  });

  it('two instances on one Redis share the count: a limit of 10, 12 hits alternating, 10 pass', async () => {
    const [a, b] = [await shared(), await shared()];
    try {
      const k = key('ab');
      const got: RateDecision[] = [];
      for (let n = 0; n < 12; n++) got.push(await (n % 2 === 0 ? a : b).limiter.hit(k, 10, 60_000));
      assert.deepEqual(
        got.map((d) => d.allowed),
        [...Array<boolean>(10).fill(true), false, false],
      );
      assert.deepEqual(
        got.map((d) => d.remaining),
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0],
      );
      assert.equal(new Set(got.map((d) => d.resetAt)).size, 1, 'one window for both');
      assert.equal(a.status.get('rate_limits')?.state, 'up');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('peek reads the shared count without counting: refused once more than the limit were counted', async () => {
    const [a, b] = [await shared(), await shared()];
    try {
      const k = key('peek');
      assert.equal((await b.limiter.peek(k, 2, 60_000))?.allowed, true);
      for (let n = 0; n < 2; n++) await a.limiter.hit(k, 2, 60_000);
      assert.equal((await b.limiter.peek(k, 2, 60_000))?.allowed, true, 'limit hits: the next one is judged');
      assert.equal((await a.limiter.hit(k, 2, 60_000)).allowed, false);
      const seen = await b.limiter.peek(k, 2, 60_000);
      assert.deepEqual([seen?.allowed, seen?.remaining], [false, 0]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("windows are timed by Redis's clock, not the instance's, and a new one starts at Redis's reset", async () => {
    const far = Date.UTC(2001, 0, 1); // the instance's clock, years off
    const i = await instanceOn(redis.url, (w) => new SharedRateLimiter(w, () => far));
    const c = redis.client();
    try {
      const k = key('clock');
      const [sec] = await c.time();
      const first = await i.limiter.hit(k, 1, 1000);
      assert.ok(first.allowed);
      assert.ok(
        first.resetAt >= Number(sec) + 1 && first.resetAt <= Number(sec) + 2,
        'the second after Redis’s',
      );
      // Refused until Redis's clock reaches the reset, then a new window with the full limit.
      let next: RateDecision;
      await until(
        async () => {
          next = await i.limiter.hit(k, 1, 1000);
          if (!next.allowed) assert.equal(next.resetAt, first.resetAt);
          return next.allowed;
        },
        3000,
        'no new window',
      );
      assert.ok(next!.resetAt > first.resetAt);
      assert.ok(Number((await c.time())[0]) >= first.resetAt);
    } finally {
      await i.close();
    }
  });

  it('Redis stopped: counted in memory at once, reported degraded; restarted: shared again by itself', async () => {
    const [a, b] = [await shared(), await shared()];
    try {
      await redis.stop();
      // The first hit may still be sent and fail; from then on no hit waits for Redis.
      const k = key('outage');
      const first = await a.limiter.hit(k, 2, 60_000);
      assert.equal(first.allowed, true);
      const second = a.limiter.hit(k, 2, 60_000);
      assert.ok(!(second instanceof Promise), 'answered from memory without waiting');
      assert.deepEqual([second.allowed, second.remaining], [true, 0]);
      assert.equal((a.limiter.hit(k, 2, 60_000) as RateDecision).allowed, false, 'the instance’s own window');
      assert.deepEqual(
        [a.status.get('rate_limits')?.state, a.status.get('rate_limits')?.detail],
        ['degraded', 'counted per instance: Redis unreachable'],
      );
      assert.equal(await metricValue(a.metrics, 'mockingbird_rate_limits_shared'), 0);
      assert.equal(await metricValue(a.metrics, 'mockingbird_rate_limit_local_hits_total'), 3);
      assert.equal(await a.limiter.peek(k, 2, 60_000), undefined, 'nothing shared to read');

      await redis.start();
      await until(() => a.windows.shared && b.windows.shared, 5000, 'not shared again');
      assert.equal(a.status.get('rate_limits')?.state, 'up');
      assert.equal(await metricValue(a.metrics, 'mockingbird_rate_limits_shared'), 1);
      const k2 = key('back');
      assert.equal((await a.limiter.hit(k2, 1, 60_000)).allowed, true);
      assert.equal((await b.limiter.hit(k2, 1, 60_000)).allowed, false, 'one count for both again');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('Redis paused: the hit in flight gets its answer from memory after the command timeout, not the pause', async () => {
    const a = await shared(200);
    try {
      const k = key('paused');
      await a.limiter.hit(k, 5, 60_000);
      await redis.pause(3000);
      const sent = Date.now();
      const d = await a.limiter.hit(k, 5, 60_000);
      assert.ok(Date.now() - sent < 2500, 'answered while Redis is still paused');
      assert.deepEqual([d.allowed, d.remaining], [true, 4], 'a window of its own, from the first hit');
      assert.equal(a.status.get('rate_limits')?.state, 'degraded');
      assert.ok(!(a.limiter.hit(k, 5, 60_000) instanceof Promise), 'the next hits do not wait');
      await until(() => a.windows.shared, 6000, 'not shared again after the pause');
      assert.equal(a.status.get('rate_limits')?.state, 'up');
    } finally {
      await a.close();
    }
  });
});
