/**
 * Several instances on one database, seen from the Store (SPEC §8, issue 33 items 4 and 7): two stores
 * on one PostgreSQL database, as two instances with REDIS_URL open it, keep state and CRUD caps exact
 * and elect one leader for the background jobs; two opens of one SQLite data folder are refused.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DataDirInUse, openPostgresStore, openStore, type KyselyStore } from '../../src/store/index.js';
import { MemoryStateLock } from '../../src/state/index.js';
import { PgLeader } from '../../src/store/leader.js';
import { LOCK_SPACE } from '../../src/store/advisory.js';
import { isStoreUnavailable } from '../../src/store/index.js';
import { startApp } from '../helpers/app.js';
import { freshPgDatabase, pgSkip, suiteOrSkip } from '../helpers/pg.js';
import { until } from '../helpers/until.js';

const leaderGauge = async (app: {
  ctx: { metrics: { jobsLeader: { get(): Promise<{ values: { value: number }[] }> } } };
}) => (await app.ctx.metrics.jobsLeader.get()).values[0]?.value;

suiteOrSkip('two Store instances on one PostgreSQL database', pgSkip, () => {
  let db: { url: string; drop: () => Promise<void> };
  let a: KyselyStore;
  let b: KyselyStore;
  before(async () => {
    db = await freshPgDatabase();
    a = await openPostgresStore(db.url, { shared: true });
    b = await openPostgresStore(db.url, { shared: true });
    await a.createEndpoint({ name: 'shop', createdAt: 1, settings: {} });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  test('2 x 150 read-increment-write sequences over two stores each see their own value; the counter reads 300', async () => {
    // As the rules step runs a template: this instance's lock, then the store's, around read and change.
    const hit = (store: KyselyStore, lock: MemoryStateLock) =>
      lock.run('shop', () =>
        store.withStateLock('shop', async (s) => {
          const { items } = await s.read([{ type: 'counter', key: 'n' }]);
          const seen = ((items[0]?.value as number | undefined) ?? 0) + 1;
          await s.apply([{ op: 'add', key: 'n', by: 1 }], 5);
          return seen;
        }),
      );
    const [la, lb] = [new MemoryStateLock(), new MemoryStateLock()];
    const seen = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? hit(a, la) : hit(b, lb))),
    );
    assert.deepEqual(
      seen.sort((x, y) => x - y),
      Array.from({ length: 300 }, (_, i) => i + 1),
    );
    assert.equal((await b.getState('shop', 'counter', 'n'))?.value, 300);
  });

  test('single-statement changes from both stores at once lose nothing: 2 x 300 adds and pushes', async () => {
    const ops = (store: KyselyStore, i: number) =>
      Promise.all([
        store.applyState('shop', [{ op: 'add', key: 'plain', by: 1 }], 6),
        store.applyState('shop', [{ op: 'push', key: 'l', value: i, maxLength: 1000, maxChars: 100_000 }], 6),
      ]);
    await Promise.all(Array.from({ length: 600 }, (_, i) => ops(i % 2 === 0 ? a : b, i)));
    assert.equal((await a.getState('shop', 'counter', 'plain'))?.value, 600);
    const list = (await a.getState('shop', 'list', 'l'))?.value as number[];
    assert.equal(list.length, 600);
    assert.equal(new Set(list).size, 600);
  });

  test('a cap a store checks is exact across stores: 2 x 30 creations into a collection of 20', async () => {
    const caps = { maxItems: 20, maxEndpointItems: 1000, maxEndpointBytes: 1_000_000, maxItemBytes: 1000 };
    const create = (store: KyselyStore, i: number) =>
      store.insertCrudItem(
        'shop',
        '/c',
        { id: `i${i}`, data: { id: `i${i}` }, createdAt: i, updatedAt: i },
        caps,
      );
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => create(i % 2 === 0 ? a : b, i)));
    assert.equal(results.filter((r) => r.ok).length, 20);
    assert.ok(results.every((r) => r.ok || r.why === 'collection_full'));
    assert.equal((await b.listCrudItems('shop', '/c', 100, 0)).total, 20);
  });

  test('one store leads; when its connection ends, the other takes over at its next check', async () => {
    const [first, second] = [await a.leads(), await b.leads()];
    assert.equal(first, true);
    assert.equal(second, false);
    assert.equal(await a.leads(), true, 'the leader keeps leading');
    assert.equal(await b.leads(), false);
    // The leader's connection killed, as when its process is: PostgreSQL frees the lock.
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const r = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = 'mockingbird leader' and datname = current_database()
            and pid in (select pid from pg_locks where locktype = 'advisory' and granted)`,
      );
      assert.equal(r.rowCount, 1);
    } finally {
      await admin.end();
    }
    await until(async () => await b.leads(), 5000);
    assert.equal(await a.leads(), false, 'the old leader finds the lock taken');
  });

  test('a holder out of reach: the wait for the endpoint ends at the timeout with a store_unavailable error', async () => {
    const impatient = await openPostgresStore(db.url, { shared: true, locks: { timeoutMs: 200 } });
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select pg_advisory_xact_lock($1::int, hashtext($2))', [LOCK_SPACE.state, 'shop']);
      let ran = false;
      await assert.rejects(
        impatient.withStateLock('shop', async () => void (ran = true)),
        (err: Error & { code?: string }) => {
          assert.equal(err.code, '55P03');
          assert.ok(isStoreUnavailable(err));
          return true;
        },
      );
      assert.equal(ran, false);
      await holder.query('rollback');
      assert.equal(await impatient.withStateLock('shop', async () => 'held'), 'held');
    } finally {
      await holder.end();
      await impatient.close();
    }
  });

  test('an app on PostgreSQL leads once its first job ticks, and says so in mockingbird_jobs_leader', async () => {
    const own = await freshPgDatabase();
    const app = await startApp({ databaseUrl: own.url });
    try {
      assert.equal(await leaderGauge(app), 0);
      await until(async () => (await leaderGauge(app)) === 1, 10_000, 'the app never led');
    } finally {
      await app.stop();
      await own.drop();
    }
  });
});

test('a database out of reach: the leader check answers false, it does not throw', async () => {
  const leader = new PgLeader('postgres://postgres@127.0.0.1:1/none', undefined, 1000);
  try {
    assert.equal(await leader.leads(), false);
  } finally {
    await leader.close();
  }
});

test('an app on SQLite is the one instance, and leads', async () => {
  const app = await startApp();
  try {
    assert.equal(await leaderGauge(app), 1);
  } finally {
    await app.stop();
  }
});

test('a second open of one SQLite data folder is refused, naming it; after close it opens', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mb-datadir-'));
  const open = () => openStore({ dataDir: dir, databaseUrl: undefined });
  try {
    const first = await open();
    assert.equal(readFileSync(join(dir, 'mockingbird.pid'), 'utf8').trim(), String(process.pid));
    await assert.rejects(open(), (err: Error) => {
      assert.ok(err instanceof DataDirInUse);
      assert.ok(err.message.includes(dir), err.message);
      assert.match(err.message, new RegExp(`pid ${process.pid}.*DATABASE_URL`));
      return true;
    });
    assert.equal(await first.leads(), true, 'one instance always leads');
    await first.close();
    const again = await open();
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
