/** The background history purge: works through what deletes hid, survives a restart and a failing store. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHistoryPurge } from '../../src/history/index.js';
import { openSqliteStore, type KyselyStore } from '../../src/store/index.js';
import { entry } from '../helpers/history-fixtures.js';
import { until } from '../helpers/until.js';

const quiet = { info: () => undefined, error: () => undefined };

async function rowsOnDisk(store: KyselyStore, endpoint: string): Promise<number> {
  const r = await store.db
    .selectFrom('requests')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('endpoint', '=', endpoint)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

test('hidden entries stay hidden across a restart, and the purge then deletes them in chunks', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mb-purge-'));
  const file = join(dir, 'db.sqlite');
  try {
    let store = await openSqliteStore(file);
    await store.createEndpoint({ name: 'big', createdAt: 1, settings: {} });
    await store.insertHistory(Array.from({ length: 2500 }, () => entry('big')));
    await store.insertHistory([entry('big', { status: 500 })]);
    assert.equal(await store.deleteHistory('big', { status: 200 }), 2500);
    await store.close();

    store = await openSqliteStore(file);
    try {
      assert.equal(await store.countHistory('big', {}), 1, 'still hidden after the restart');
      assert.equal(await rowsOnDisk(store, 'big'), 2501, 'nothing purged yet');
      const calls: number[] = [];
      const counting = {
        purgeHistory: async (limit: number) => {
          const n = await store.purgeHistory(limit);
          calls.push(n);
          return n;
        },
      };
      const purge = startHistoryPurge(counting, quiet, { intervalMs: 20, chunk: 1000 });
      await until(async () => (await store.historyPurgeBacklog()) === 0, 5000);
      await purge.stop();
      assert.deepEqual(calls.slice(0, 3), [1000, 1000, 500], 'one pass in chunks of 1000');
      assert.equal(await rowsOnDisk(store, 'big'), 1);
      assert.equal(await store.countHistory('big', {}), 1);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a failing purge is logged and retried at the next interval; stop waits for the pass under way', async () => {
  const errors: unknown[] = [];
  let calls = 0;
  let release: () => void = () => undefined;
  const store = {
    purgeHistory: async () => {
      calls++;
      if (calls === 1) throw new Error('database is locked');
      if (calls === 2) await new Promise<void>((r) => (release = r));
      return 0;
    },
  };
  const purge = startHistoryPurge(
    store,
    { info: () => undefined, error: (o: unknown) => errors.push(o) },
    {
      intervalMs: 10,
    },
  );
  await until(() => calls >= 2, 5000);
  assert.equal(errors.length, 1);
  let stopped = false;
  const stopping = purge.stop().then(() => (stopped = true));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(stopped, false, 'stop waits for the transaction under way');
  release();
  await stopping;
  const after = calls;
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(calls, after, 'nothing runs after stop');
});

test('after finding nothing to purge, the purge looks again once this store hides more, or a minute later', async () => {
  const store = await openSqliteStore(':memory:');
  try {
    await store.createEndpoint({ name: 'idle', createdAt: 1, settings: {} });
    const entries = Array.from({ length: 3 }, () => entry('idle'));
    await store.insertHistory(entries);
    const t = Date.now();
    assert.equal(await store.purgeHistory(10, t), 0, 'nothing hidden');
    // Hidden behind this store's back (another instance sharing the database): not looked for yet.
    const first = entries[0]!.entry;
    await store.db
      .insertInto('history_hidden')
      .values({ endpoint: 'idle', created_at: first.createdAt, id: first.id })
      .execute();
    assert.equal(await store.purgeHistory(10, t + 1000), 0, 'within the minute, not asked');
    assert.equal(await rowsOnDisk(store, 'idle'), 3);
    assert.equal(await store.purgeHistory(10, t + 61_000), 1, 'a minute later, found');
    assert.equal(await rowsOnDisk(store, 'idle'), 2);
    // A delete through this store wakes the purge at once.
    assert.equal(await store.deleteHistory('idle', {}), 2);
    assert.equal(await store.purgeHistory(10, t + 62_000), 2);
    assert.equal(await rowsOnDisk(store, 'idle'), 0);
  } finally {
    await store.close();
  }
});
