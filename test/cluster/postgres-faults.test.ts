/**
 * PostgreSQL connections killed under two instances (SPEC §8, issue 33): `pg_terminate_backend` on
 * every connection of the database while requests are sent. No instance crashes, the endpoints they
 * hold keep answering from their cache, the pools reconnect by themselves, and every request that was
 * answered is in the history once the database is back.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { startCluster, clusterSkip, type Cluster } from '../helpers/cluster.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { until } from '../helpers/until.js';

suiteOrSkip('PostgreSQL connections killed under two instances', clusterSkip, () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster(2);
  });
  after(async () => {
    await c?.stop();
  });

  const api = (...args: Parameters<Cluster['api']>): Promise<Response> => c.api(...args);

  /** Terminates every other connection to the cluster's database; answers how many. */
  async function killConnections(): Promise<number> {
    const admin = new pg.Client({ connectionString: c.databaseUrl });
    await admin.connect();
    try {
      const r = await admin.query(
        `select pg_terminate_backend(pid) as killed from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()`,
      );
      return r.rowCount ?? 0;
    } finally {
      await admin.end();
    }
  }

  test('endpoints keep answering, the instances reconnect, and no answered request is lost', async () => {
    assert.equal((await api(0, 'POST', '/endpoints', { name: 'steady' })).status, 201);
    const rule = {
      conditions: [{ type: 'path', operator: 'starts_with', value: '/' }],
      action: { type: 'mock', status: 200, body: 'steady' },
    };
    assert.equal((await api(0, 'POST', '/endpoints/steady/rules', rule)).status, 201);
    let answered = 0;
    const send = async (i: number): Promise<void> => {
      const r = await fetch(`${c.instances[i % 2]!.url}/e/steady/n${i}`);
      const text = await r.text();
      if (r.status === 200) {
        assert.equal(text, 'steady');
        answered++;
      } else assert.equal(r.status, 503, `request ${i}: ${r.status} ${text}`);
    };
    // Both instances hold the endpoint before the connections go.
    for (let i = 0; i < 4; i++) await send(i);

    assert.ok((await killConnections()) > 0, 'the instances had connections to kill');
    for (let round = 0; round < 3; round++) {
      // Later rounds kill what the instances opened again meanwhile (history writes, jobs), if anything.
      if (round > 0) await killConnections();
      await Promise.all(Array.from({ length: 20 }, (_, k) => send(100 * (round + 1) + k)));
      await new Promise((r) => setTimeout(r, 300));
    }
    for (const inst of c.instances) assert.equal(inst.child()?.exitCode, null, `${inst.name} is running`);
    assert.ok(answered >= 4 + 3 * 20 * 0.9, `${answered} answered from the cache`);

    // The pools reconnect by themselves: the API answers again, and every answered request is there.
    let recorded = -1;
    await until(
      async () => {
        const r = await api(1, 'GET', '/endpoints/steady/requests?limit=100');
        if (r.status !== 200) return false;
        recorded = ((await r.json()) as { data: unknown[] }).data.length;
        return recorded >= answered;
      },
      20_000,
      `the history holds ${recorded} of the ${answered} answered requests`,
    );
    assert.equal(recorded, answered, 'each answered request recorded once');
  });
});
