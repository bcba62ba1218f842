/**
 * Freshness across instances (issue 33, items 1 and 6; SPEC §8): a request that follows a 2xx of the
 * management API is served from the changed configuration on every instance, also while Redis is
 * stopped, paused or restarted empty. Two real instances, A and B, on one PostgreSQL database and a
 * Redis of the test's own; each change goes through A, and B is asked at once.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { clusterSkip, startCluster, type Cluster } from '../helpers/cluster.js';
import { suiteOrSkip } from '../helpers/pg.js';

interface Answer {
  status: number;
  body: string;
  ms: number;
}

suiteOrSkip('freshness across two instances', clusterSkip, () => {
  let c: Cluster;
  let ruleId: string;
  before(async () => {
    c = await startCluster(2);
    assert.equal((await api(0, 'POST', '/endpoints', { name: 'fresh' })).status, 201);
    const r = await api(0, 'POST', '/endpoints/fresh/rules', rule('v0'));
    assert.equal(r.status, 201);
    ruleId = ((await r.json()) as { id: string }).id;
  });
  after(async () => {
    await c?.stop();
  });

  function rule(body: string) {
    return {
      conditions: [{ type: 'path', operator: 'equals', value: '/rule' }],
      action: { type: 'mock', status: 200, body },
    };
  }

  const api = (...args: Parameters<Cluster['api']>): Promise<Response> => c.api(...args);

  /** GET `path` from instance `i`, with `host` as the Host header when given. */
  function get(i: number, path: string, host?: string): Promise<Answer> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: c.instances[i]!.port,
          path,
          agent: false,
          ...(host === undefined ? {} : { headers: { host } }),
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: Date.now() - started }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  async function patchRule(via: number, body: string): Promise<void> {
    const r = await api(via, 'PATCH', `/endpoints/fresh/rules/${ruleId}`, { action: rule(body).action });
    assert.equal(r.status, 200, await r.text());
  }

  test('200 times: a rule PATCHed through A is the rule B answers with at once', async () => {
    assert.equal((await get(1, '/e/fresh/rule')).body, 'v0', 'B holds the endpoint in its cache');
    for (let i = 1; i <= 200; i++) {
      await patchRule(0, `v${i}`);
      const b = await get(1, '/e/fresh/rule');
      assert.equal(b.body, `v${i}`, `iteration ${i}: B answered an old rule`);
    }
  });

  test('200 times: a setting changed through A is the one B uses at once', async () => {
    for (let i = 1; i <= 200; i++) {
      const r = await api(0, 'PATCH', '/endpoints/fresh/settings', {
        defaultResponse: { status: 203, body: `s${i}` },
      });
      assert.equal(r.status, 200, await r.text());
      const b = await get(1, '/e/fresh/no-rule-here');
      assert.deepEqual([b.status, b.body], [203, `s${i}`], `iteration ${i}: B used an old setting`);
    }
  });

  test('200 times: a custom domain claimed through A is served by B at once', async () => {
    // B has read its map of domains already: an unclaimed host is the management plane's 404.
    assert.equal((await get(1, '/rule', 'd0.example.test')).status, 404);
    for (let i = 1; i <= 200; i++) {
      const domain = `d${i}.example.test`;
      const r = await api(0, 'PATCH', '/endpoints/fresh/settings', {
        customDomain: { enabled: true, domain },
      });
      assert.equal(r.status, 200, await r.text());
      const b = await get(1, '/rule', `${domain}:8080`);
      assert.equal(b.status, 200, `iteration ${i}: B did not serve ${domain}`);
      assert.equal(b.body, 'v200');
    }
    // Released through A: B no longer serves it.
    const r = await api(0, 'PATCH', '/endpoints/fresh/settings', {
      customDomain: { enabled: false, domain: null },
    });
    assert.equal(r.status, 200, await r.text());
    assert.equal((await get(1, '/rule', 'd200.example.test')).status, 404);
  });

  test('one domain claimed through A and B at once: exactly one wins, the other is 409 conflict', async () => {
    for (const n of ['race-a', 'race-b'])
      assert.equal((await api(0, 'POST', '/endpoints', { name: n })).status, 201);
    for (let i = 0; i < 10; i++) {
      const domain = `race${i}.example.test`;
      const claim = { customDomain: { enabled: true, domain } };
      const answers = await Promise.all([
        api(0, 'PATCH', '/endpoints/race-a/settings', claim),
        api(1, 'PATCH', '/endpoints/race-b/settings', claim),
      ]);
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, 409], `race ${i}`);
      const loser = answers.find((a) => a.status === 409)!;
      assert.equal(((await loser.json()) as { error: { code: string } }).error.code, 'conflict');
      // The winner releases it for the next round.
      const winner = answers[0].status === 200 ? 'race-a' : 'race-b';
      const off = { customDomain: { enabled: false, domain: null } };
      assert.equal((await api(0, 'PATCH', `/endpoints/${winner}/settings`, off)).status, 200);
    }
  });

  test('Redis stopped: B answers from its cache, and a change made through A is seen by B at once', async () => {
    await c.redis.stop();
    const cached = await get(1, '/e/fresh/rule');
    assert.deepEqual([cached.status, cached.body], [200, 'v200']);
    for (let i = 1; i <= 3; i++) {
      await patchRule(0, `down${i}`);
      assert.equal((await get(1, '/e/fresh/rule')).body, `down${i}`);
    }
  });

  test('Redis restarted empty: no instance answers a stale rule', async () => {
    await c.redis.start();
    assert.equal((await get(1, '/e/fresh/rule')).body, 'down3');
    for (let i = 1; i <= 20; i++) {
      await patchRule(0, `back${i}`);
      assert.equal((await get(1, '/e/fresh/rule')).body, `back${i}`);
      assert.equal((await get(0, '/e/fresh/rule')).body, `back${i}`);
    }
  });

  test('Redis paused: requests are answered within about the command timeout, and changes still apply', async () => {
    await c.redis.pause(2000);
    const during = await Promise.all([get(1, '/e/fresh/rule'), get(0, '/e/fresh/rule')]);
    for (const a of during) {
      assert.deepEqual([a.status, a.body], [200, 'back20']);
      assert.ok(a.ms < 1500, `answered in ${a.ms} ms while Redis was paused`);
    }
    await patchRule(0, 'paused');
    assert.equal((await get(1, '/e/fresh/rule')).body, 'paused');
  });
});
