/**
 * Operations of several instances (SPEC §8): each instance is ready on its own; /health shows the
 * shared dependencies; Redis going away degrades /health but never readiness (else every replica
 * would leave the load balancer at once); SIGTERM turns readiness 503 during DRAIN_DELAY while
 * requests are still served, lets a slow request in flight finish, and exits 0.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startCluster, clusterSkip, type Cluster } from '../helpers/cluster.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { until } from '../helpers/until.js';

const DRAIN_DELAY = 4000;
/** Longer than DRAIN_DELAY: the request is still in flight when the listener closes. */
const SLOW_MS = 6000;

suiteOrSkip('operations of two instances on one PostgreSQL and one Redis', clusterSkip, () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster(2, { env: { DRAIN_DELAY: String(DRAIN_DELAY) } });
  });
  after(async () => {
    await c?.stop();
  });

  const get = (i: number, path: string, key = true): Promise<Response> =>
    fetch(`${c.instances[i]!.url}${path}`, { headers: key ? { authorization: c.key } : {} });
  const health = async (i: number) => {
    const r = await get(i, '/api/v2/health');
    assert.equal(r.status, 200);
    return (await r.json()) as {
      degraded: boolean;
      database: { dialect: string; state: string };
      redis: { state: string; detail?: string };
      reports: Record<string, { state: string }>;
    };
  };

  test('/livez and /readyz answer 200 on both instances', async () => {
    for (const i of [0, 1]) {
      assert.equal((await get(i, '/livez', false)).status, 200);
      const r = await get(i, '/readyz', false);
      assert.equal(r.status, 200);
      assert.deepEqual(await r.json(), { status: 'ready' });
    }
  });

  test('/health on A: PostgreSQL and Redis up, not degraded; /metrics says both are up', async () => {
    const h = await health(0);
    assert.equal(h.degraded, false, JSON.stringify(h));
    assert.deepEqual([h.database.dialect, h.database.state], ['postgres', 'up']);
    assert.equal(h.redis.state, 'up');
    const text = await (await get(0, '/metrics')).text();
    assert.match(text, /^mockingbird_dependency_up\{dependency="postgres"\} 1$/m);
    assert.match(text, /^mockingbird_dependency_up\{dependency="redis"\} 1$/m);
  });

  test('Redis stopped: /readyz stays 200, /health says Redis down and degraded; back by itself', async () => {
    await c.redis.stop();
    try {
      for (const i of [0, 1]) assert.equal((await get(i, '/readyz', false)).status, 200);
      const h = await health(0);
      assert.equal(h.redis.state, 'down');
      assert.equal(h.degraded, true);
      assert.equal(h.database.state, 'up');
      assert.equal((await get(1, '/e/echo/while-redis-is-down', false)).status, 200);
      assert.match(
        await (await get(0, '/metrics')).text(),
        /^mockingbird_dependency_up\{dependency="redis"\} 0$/m,
      );
    } finally {
      await c.redis.start();
    }
    await until(async () => (await health(0)).redis.state === 'up', 10_000, 'Redis not back on A');
  });

  test('SIGTERM on A: /readyz 503 during DRAIN_DELAY, requests still served, the slow one finishes, exit 0', async () => {
    const a = c.instances[0]!;
    const api = (method: string, path: string, body: unknown) =>
      fetch(`${a.url}/api/v2${path}`, {
        method,
        headers: { authorization: c.key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    assert.equal((await api('POST', '/endpoints', { name: 'slow' })).status, 201);
    const rule = await api('POST', '/endpoints/slow/rules', {
      conditions: [{ type: 'path', operator: 'equals', value: '/wait' }],
      action: { type: 'mock', status: 200, body: 'finished', delay: SLOW_MS },
    });
    assert.equal(rule.status, 201, await rule.text());

    // Sent before the signal; answered after the listener has closed (SLOW_MS > DRAIN_DELAY).
    const slow = fetch(`${a.url}/e/slow/wait`);
    assert.equal((await get(0, '/readyz', false)).status, 200);
    const exited = a.stop();
    let draining: Response | undefined;
    await until(
      async () => {
        const r = await get(0, '/readyz', false);
        if (r.status === 503) draining = r;
        return draining !== undefined;
      },
      DRAIN_DELAY / 2,
      'readiness did not turn 503 soon after SIGTERM',
    );
    assert.deepEqual(await draining!.json(), { status: 'draining' });
    assert.equal((await get(0, '/e/echo/during-drain', false)).status, 200, 'served while draining');
    assert.equal((await get(1, '/readyz', false)).status, 200, 'B stays ready');
    const answer = await slow;
    assert.equal(answer.status, 200);
    assert.equal(await answer.text(), 'finished');
    assert.equal(await exited, 0);
    assert.match(a.output(), /draining: \/readyz answers 503/);
  });
});
