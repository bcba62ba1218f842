/**
 * Live events across two real instances on one PostgreSQL and one Redis (issue 33, item 2): a
 * dashboard on A sees requests sent to B, resumes on B from its Last-Event-ID exactly once, is told
 * to reload (`reset`) when the stream no longer keeps its id, keeps getting A's own events while
 * Redis is down and B's again once it is back (empty), and is sent `retry:` when A is stopped.
 * The stream is kept short (EVENT_STREAM_LENGTH 10): Redis trims it a node (100 entries) at a time,
 * so the tests before the trimming one stay well under a node.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startCluster, clusterSkip, type Cluster } from '../helpers/cluster.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { openStream, type SseClient } from '../helpers/sse-client.js';
import { until } from '../helpers/until.js';

suiteOrSkip('live events across instances', clusterSkip, () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster(2, { env: { EVENT_STREAM_LENGTH: '10' } });
  });
  after(async () => {
    await c?.stop();
  });

  const url = (i: number) => c.instances[i]!.url;
  const auth = () => ({ authorization: c.key });
  const stream = (i: number, ep: string, lastId?: string): Promise<SseClient> =>
    openStream(`${url(i)}/api/v2/endpoints/${ep}/events`, {
      ...auth(),
      ...(lastId === undefined ? {} : { 'last-event-id': lastId }),
    });
  async function endpoint(name: string): Promise<string> {
    const r = await fetch(`${url(0)}/api/v2/endpoints`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    assert.equal(r.status, 201, await r.text());
    return name;
  }
  async function hit(i: number, ep: string, path: string): Promise<void> {
    const r = await fetch(`${url(i)}/e/${ep}${path}`);
    assert.equal(r.status, 200);
    await r.text();
  }
  const paths = (s: SseClient): string[] =>
    s.events.filter((e) => e.event === 'request.created').map((e) => String(e.data.path));

  /** Sends requests to instance `i` until `s` has seen one: the first may precede the listen mark there. */
  async function firstSeen(s: SseClient, i: number, ep: string): Promise<void> {
    let n = 0;
    await until(
      async () => {
        await hit(i, ep, `/warmup-${n++}`);
        await new Promise((r) => setTimeout(r, 200));
        return paths(s).length > 0;
      },
      20_000,
      `no request.created from instance ${i}`,
    );
  }

  /** Waits until every instance has known of the endpoint's listen mark long enough for a resume. */
  async function markSettled(ep: string): Promise<void> {
    const r = c.redis.client();
    await until(
      async () => {
        const since = Number(await r.hget('mockingbird:events:since', ep));
        const [s, us] = await r.time();
        return since > 0 && Number(s) * 1000 + Math.floor(Number(us) / 1000) - since > 2100;
      },
      5000,
      'the listen mark never settled',
    );
  }

  test("a dashboard on A sees the request.created of a request sent to B, with the stream's id", async () => {
    const ep = await endpoint('cross');
    const s = await stream(0, ep);
    try {
      assert.equal(s.status, 200);
      await firstSeen(s, 1, ep);
      await hit(1, ep, '/from-b');
      await until(() => paths(s).includes('/from-b'), 10_000);
      const e = s.events.find((x) => x.data?.path === '/from-b')!;
      assert.match(e.id!, /^\d+-\d+$/);
    } finally {
      s.close();
    }
  });

  test('a dashboard that reconnects to B with Last-Event-ID gets what it missed exactly once, then live', async () => {
    const ep = await endpoint('resume');
    const s = await stream(0, ep);
    await firstSeen(s, 1, ep);
    await markSettled(ep);
    await hit(1, ep, '/seen');
    await until(() => paths(s).includes('/seen'), 5000);
    const lastId = s.lastId()!;
    s.close();
    await s.ended;
    for (const [i, p] of [
      [0, '/missed-1'],
      [1, '/missed-2'],
      [0, '/missed-3'],
    ] as const)
      await hit(i, ep, p);
    const back = await stream(1, ep, lastId);
    try {
      assert.equal(back.status, 200);
      await until(() => paths(back).length >= 3, 10_000, `got ${JSON.stringify(paths(back))}`);
      await hit(0, ep, '/live');
      await until(() => paths(back).includes('/live'), 10_000);
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(paths(back).sort(), ['/live', '/missed-1', '/missed-2', '/missed-3']);
      assert.equal(back.events.filter((e) => e.event === 'reset').length, 0);
    } finally {
      back.close();
    }
  });

  test('a Last-Event-ID older than the stream keeps gets one reset', async () => {
    const ep = await endpoint('trimmed');
    const s = await stream(0, ep);
    await firstSeen(s, 1, ep);
    const lastId = s.lastId()!;
    s.close();
    // Over two nodes of 100 entries: the node holding lastId goes.
    for (let i = 0; i < 250; i += 10)
      await Promise.all(Array.from({ length: 10 }, (_, k) => hit(1, ep, `/fill-${i + k}`)));
    const back = await stream(0, ep, lastId);
    try {
      const first = await back.next();
      assert.equal(first.event, 'reset');
      assert.match(first.id!, /^\d+-\d+$/);
    } finally {
      back.close();
    }
  });

  test("Redis stopped: A's dashboards get A's events; restarted empty: B's come back by themselves", async () => {
    const ep = await endpoint('outage');
    const s = await stream(0, ep);
    try {
      await firstSeen(s, 1, ep);
      await c.redis.stop();
      await hit(0, ep, '/during');
      await until(() => paths(s).includes('/during'), 10_000);
      assert.equal(s.events.find((e) => e.data?.path === '/during')!.id, undefined);
      await c.redis.start();
      let n = 0;
      await until(
        async () => {
          await hit(1, ep, `/after-${n++}`);
          await new Promise((r) => setTimeout(r, 300));
          return paths(s).some((p) => p.startsWith('/after-'));
        },
        30_000,
        "B's events never came back",
      );
      // A appended its gap once Redis was back: the dashboard was told to reload.
      await until(() => s.events.some((e) => e.event === 'reset'), 10_000);
      for (const inst of c.instances) assert.ok(inst.child(), `${inst.name} still runs`);
    } finally {
      s.close();
    }
  });

  test("SIGTERM of A ends A's event streams with a retry: line", async () => {
    const ep = await endpoint('drain');
    const s = await stream(0, ep);
    await until(() => s.text().length > 0);
    assert.equal(await c.instances[0]!.stop(), 0);
    await s.ended;
    assert.match(s.text(), /retry: 1000\n\n$/);
  });
});
