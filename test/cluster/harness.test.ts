/**
 * The harness of several instances (test/helpers/cluster.ts) itself: two processes on one database and
 * one Redis serve one set of endpoints, and an instance stopped with SIGTERM exits cleanly and starts
 * again. The behaviours of SPEC §8 have test files of their own beside this one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startCluster, clusterSkip, type Cluster } from '../helpers/cluster.js';
import { suiteOrSkip } from '../helpers/pg.js';

suiteOrSkip('two instances on one PostgreSQL and one Redis', clusterSkip, () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster(2);
  });
  after(async () => {
    await c?.stop();
  });

  const api = (...args: Parameters<Cluster['api']>): Promise<Response> => c.api(...args);

  test('an endpoint and a rule made through A answer on B', async () => {
    assert.equal((await api(0, 'POST', '/endpoints', { name: 'shared' })).status, 201);
    const rule = {
      conditions: [{ type: 'path', operator: 'starts_with', value: '/' }],
      action: { type: 'mock', status: 202, body: 'from the rule' },
    };
    const created = await api(0, 'POST', '/endpoints/shared/rules', rule);
    assert.equal(created.status, 201, await created.text());
    const r = await fetch(`${c.instances[1]!.url}/e/shared/anything`);
    assert.equal(r.status, 202);
    assert.equal(await r.text(), 'from the rule');
  });

  test('an instance stopped with SIGTERM exits 0 and starts again on its port', async () => {
    const b = c.instances[1]!;
    assert.equal(await b.stop(), 0);
    await assert.rejects(fetch(`${b.url}/e/shared/x`));
    await b.start();
    assert.equal((await fetch(`${b.url}/e/shared/x`)).status, 202);
  });
});
