/**
 * The behaviour every RateLimiter implementation shares (in-memory today, Redis to come), in the
 * style of hono's router `common.case.test.ts`: one suite, run by a tiny file per implementation.
 * The implementation is built with the suite's clock, so windows are deterministic.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RateDecision, RateLimiter } from '../../src/http/index.js';

export type MakeLimiter = (now: () => number) => RateLimiter | Promise<RateLimiter>;

export function rateLimiterContract(name: string, make: MakeLimiter): void {
  void describe(`RateLimiter contract: ${name}`, () => {
    // 02:46:15 UTC: a minute window ends at 02:47:00, a second window at 02:46:16.
    const start = Date.UTC(2026, 4, 15, 2, 46, 15, 250);
    let seq = 0;
    const key = (k: string) => `${k}:${process.pid}:${++seq}`; // fresh keys for a shared backend

    async function withLimiter(t: { at: number }, run: (l: RateLimiter) => Promise<void>): Promise<void> {
      const limiter = await make(() => t.at);
      try {
        await run(limiter);
      } finally {
        await limiter.close?.();
      }
    }

    void it('limit − 1 and limit hits pass, limit + 1 is refused; remaining counts down to 0', async () => {
      await withLimiter({ at: start }, async (l) => {
        const k = key('count');
        const got: RateDecision[] = [];
        for (let i = 0; i < 4; i++) got.push(await l.hit(k, 3, 60_000));
        assert.deepEqual(
          got.map((d) => [d.allowed, d.remaining, d.limit]),
          [
            [true, 2, 3],
            [true, 1, 3],
            [true, 0, 3],
            [false, 0, 3],
          ],
        );
      });
    });

    void it('resetAt is the end of the fixed window, in epoch seconds', async () => {
      await withLimiter({ at: start }, async (l) => {
        assert.equal((await l.hit(key('minute'), 5, 60_000)).resetAt, Date.UTC(2026, 4, 15, 2, 47, 0) / 1000);
        assert.equal((await l.hit(key('second'), 5, 1000)).resetAt, Date.UTC(2026, 4, 15, 2, 46, 16) / 1000);
        assert.equal((await l.hit(key('hour'), 5, 3_600_000)).resetAt, Date.UTC(2026, 4, 15, 3, 0, 0) / 1000);
      });
    });

    void it('a new window starts at the reset, with the full limit again', async () => {
      const t = { at: start };
      await withLimiter(t, async (l) => {
        const k = key('window');
        await l.hit(k, 1, 1000);
        assert.equal((await l.hit(k, 1, 1000)).allowed, false);
        t.at = Date.UTC(2026, 4, 15, 2, 46, 16) - 1;
        assert.equal((await l.hit(k, 1, 1000)).allowed, false);
        t.at += 1;
        const next = await l.hit(k, 1, 1000);
        assert.deepEqual([next.allowed, next.remaining], [true, 0]);
      });
    });

    void it('keys are counted apart', async () => {
      await withLimiter({ at: start }, async (l) => {
        const a = key('a');
        const b = key('b');
        assert.equal((await l.hit(a, 1, 60_000)).allowed, true);
        assert.equal((await l.hit(a, 1, 60_000)).allowed, false);
        assert.equal((await l.hit(b, 1, 60_000)).allowed, true);
      });
    });

    void it('close() resolves', async () => {
      const limiter = await make(() => start);
      await limiter.close?.();
    });
  });
}
