/**
 * Two Redis event buses on one Redis (two instances, in one process): events and changes cross,
 * resumption on the other instance, trimming, the replay bound, and what an outage of Redis does
 * (stopped, paused, restarted empty). The deployment itself is test/cluster/events.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { EndpointChange, MockEvent } from '../../src/events/index.js';
import { redisServerSkip, startRedisServer, type TestRedis } from '../helpers/redis-server.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { freshPrefix, redisBus, type TestRedisBus } from '../helpers/redis-bus.js';
import { until } from '../helpers/until.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function listen(bus: TestRedisBus, ep: string): { got: MockEvent[]; off: () => void } {
  const got: MockEvent[] = [];
  return { got, off: bus.subscribe(ep, (e) => got.push(e)) };
}

suiteOrSkip('Redis event buses of two instances', redisServerSkip, () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    await redis?.stop();
  });

  async function pair(opts: { streamLength?: number; replayMax?: number } = {}) {
    const prefix = freshPrefix();
    const a = await redisBus(redis.url, { prefix, ...opts });
    const b = await redisBus(redis.url, { prefix, ...opts });
    return { a, b, close: () => Promise.all([a.close(), b.close()]) };
  }

  void describe('sharing', () => {
    void test("an event published on A reaches B's dashboards, with the id A's get", async () => {
      const { a, b, close } = await pair();
      try {
        const onA = listen(a, 'shop');
        const onB = listen(b, 'shop');
        a.publish({ endpoint: 'shop', name: 'request.created', data: { path: '/x' } });
        await until(() => onA.got.length === 1 && onB.got.length === 1);
        assert.deepEqual(onB.got[0], onA.got[0]);
        assert.deepEqual(onB.got[0]!.data, { path: '/x' });
        await sleep(50);
        assert.equal(onA.got.length, 1, 'A delivers its own event once');
      } finally {
        await close();
      }
    });

    void test("a change: A's listeners hear it before publishChange returns, B's once; its notice once each", async () => {
      const { a, b, close } = await pair();
      try {
        const heardA: EndpointChange[] = [];
        const heardB: EndpointChange[] = [];
        a.subscribeChanges((c) => heardA.push(c));
        b.subscribeChanges((c) => heardB.push(c));
        const onA = listen(a, 'shop');
        const onB = listen(b, 'shop');
        a.publishChange({
          endpoint: 'shop',
          what: 'rules',
          notice: { name: 'rule.created', data: { id: 'r1' } },
        });
        assert.equal(heardA.length, 1, 'synchronously');
        await until(() => heardB.length === 1 && onA.got.length === 1 && onB.got.length === 1);
        await sleep(50);
        assert.deepEqual(heardB, [{ endpoint: 'shop', what: 'rules' }]);
        assert.equal(heardA.length, 1, 'A skips its own entry');
        assert.equal(onA.got.length, 1);
        assert.deepEqual(onB.got[0]!.data, { id: 'r1' });
      } finally {
        await close();
      }
    });

    void test('an endpoint watched on A is listened to on B; one nobody watches is not', async () => {
      const { a, b, close } = await pair();
      try {
        assert.equal(b.isListening('shop'), false);
        const onA = listen(a, 'shop');
        await until(() => b.isListening('shop'));
        assert.equal(b.isListening('quiet'), false);
        onA.off();
        // The mark outlives the dashboard (30 s), for it to come back and resume.
        await sleep(150);
        assert.equal(b.isListening('shop'), true);
      } finally {
        await close();
      }
    });

    void test('a dashboard of A resumes on B from its last id: the rest, exactly once', async () => {
      const { a, b, close } = await pair();
      try {
        const stays = listen(b, 'shop');
        const leaves = listen(a, 'shop');
        await sleep(150); // two beats of the marks: B has heard of them
        for (let i = 0; i < 3; i++) b.publish({ endpoint: 'shop', name: 'request.created', data: { i } });
        await until(() => leaves.got.length === 3);
        leaves.off();
        for (let i = 3; i < 6; i++) {
          a.publish({ endpoint: 'shop', name: 'request.created', data: { i } });
          b.publish({ endpoint: 'other', name: 'request.created', data: { i } });
        }
        await until(() => stays.got.length === 6);
        const r = await b.replay('shop', leaves.got[2]!.id!);
        assert.equal(r.reset, false, JSON.stringify(r));
        assert.deepEqual(r.reset ? [] : r.events, stays.got.slice(3));
      } finally {
        await close();
      }
    });

    void test('an id the stream no longer keeps (EVENT_STREAM_LENGTH) is a reset, which says where to resume', async () => {
      const { a, b, close } = await pair({ streamLength: 10 });
      try {
        const onA = listen(a, 'shop');
        await sleep(150);
        // MAXLEN ~ trims whole nodes of 100 entries: 300 entries leave the first far behind.
        for (let i = 0; i < 300; i++) {
          a.publish({ endpoint: 'shop', name: 'request.created', data: { i } });
          if (i % 5 === 4) await sleep(5);
        }
        const last = (): MockEvent | undefined => onA.got.find((e) => (e.data as { i?: number }).i === 299);
        await until(() => last() !== undefined, 5000);
        const r = await b.replay('shop', onA.got[0]!.id!);
        assert.deepEqual(r, {
          reset: true,
          id: last()!.id,
          reason: 'older than the event stream keeps',
        });
      } finally {
        await close();
      }
    });

    void test('a resume from before the dashboard listened long enough for every instance to know: reset', async () => {
      const { a, b, close } = await pair();
      try {
        const onA = listen(a, 'fresh');
        a.publish({ endpoint: 'fresh', name: 'request.created', data: {} });
        await until(() => onA.got.length === 1);
        const r = await b.replay('fresh', onA.got[0]!.id!);
        assert.equal(r.reset, true);
      } finally {
        await close();
      }
    });

    for (const [missed, reset] of [
      [4, false],
      [5, false],
      [6, true],
    ] as const) {
      void test(`EVENT_REPLAY_MAX 5: ${missed} events missed → ${reset ? 'reset' : 'replayed'}`, async () => {
        const { a, b, close } = await pair({ replayMax: 5 });
        try {
          const onA = listen(a, 'shop');
          await sleep(150);
          for (let i = 0; i <= missed; i++)
            a.publish({ endpoint: 'shop', name: 'request.created', data: { i } });
          await until(() => onA.got.length === missed + 1);
          const r = await b.replay('shop', onA.got[0]!.id!);
          assert.equal(r.reset, reset);
          if (!r.reset) assert.equal(r.events.length, missed);
        } finally {
          await close();
        }
      });
    }
  });

  void describe('outages', () => {
    void test("Redis stopped: A's dashboards still get A's events; restarted empty: B hears A again, both reset", async () => {
      const { a, b, close } = await pair();
      try {
        const onA = listen(a, 'shop');
        const onB = listen(b, 'shop');
        a.publish({ endpoint: 'shop', name: 'rule.created', data: { n: 0 } });
        await until(() => onB.got.length === 1);
        await redis.stop();
        await until(() => !a.ownLink.up);
        a.publish({ endpoint: 'shop', name: 'rule.created', data: { n: 1 } });
        a.publishChange({
          endpoint: 'shop',
          what: 'rules',
          notice: { name: 'rule.deleted', data: { n: 2 } },
        });
        assert.deepEqual(
          onA.got.slice(1).map((e) => [e.data, e.id]),
          [
            [{ n: 1 }, undefined],
            [{ n: 2 }, undefined],
          ],
          'delivered on A at once, without ids',
        );
        assert.equal(onB.got.length, 1);
        await until(() => a.status.get('events')?.state === 'degraded', 5000);
        await redis.start();
        // Nothing to do: the links reconnect, A appends its gap, every dashboard is told to reload.
        await until(
          () => onA.got.some((e) => e.name === 'reset') && onB.got.some((e) => e.name === 'reset'),
          10_000,
        );
        await until(
          async () => {
            a.publish({ endpoint: 'shop', name: 'rule.created', data: { n: 'back' } });
            await sleep(100);
            return onB.got.some((e) => (e.data as { n?: string }).n === 'back');
          },
          10_000,
          'B never heard A again',
        );
        assert.equal(a.status.get('events')?.state, 'up');
      } finally {
        await close();
      }
    });

    void test('Redis paused: publishing does not wait, A delivers once, not again when the late entry lands', async () => {
      const { a, close } = await pair();
      try {
        const onA = listen(a, 'shop');
        await sleep(100);
        await redis.pause(1500);
        const t = Date.now();
        a.publish({ endpoint: 'shop', name: 'rule.created', data: { n: 1 } });
        assert.ok(Date.now() - t < 50, 'publish returned at once');
        // The append times out (500 ms): delivered here without an id.
        await until(() => onA.got.length === 1, 3000);
        assert.equal(onA.got[0]!.id, undefined);
        // Once Redis answers, the entry lands, then the gap: a reset, and the event not a second time.
        await until(() => onA.got.some((e) => e.name === 'reset'), 10_000);
        await sleep(200);
        assert.equal(onA.got.filter((e) => e.name === 'rule.created').length, 1);
      } finally {
        await close();
      }
    });
  });
});
