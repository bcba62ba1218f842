/**
 * The per-endpoint cap trims without counting when the store can vouch for what an endpoint holds
 * (history-cap.ts, KyselyStore.trimHistory): under a steady load at the cap, counting the endpoint's
 * 100,000 index entries before each trim cost the history worker more than its inserts. What must
 * hold: the estimate is taken only on SQLite and only while nothing was removed since the count it
 * grew from, so that a stale estimate never deletes an entry the caps allow.
 */
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryWriter } from '../../src/history/index.js';
import type { KyselyStore } from '../../src/store/index.js';
import { entry } from '../helpers/history-fixtures.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { STORE_BACKENDS } from '../helpers/store-backends.js';

const ROOMY = { maxEntries: 1000, maxBytes: 2 ** 40 };
let t = 1_700_000_000_000;
/** `n` entries of `endpoint`, each later than the last. */
const entries = (endpoint: string, n: number) =>
  Array.from({ length: n }, () => entry(endpoint, { createdAt: ++t }));

for (const b of STORE_BACKENDS) {
  suiteOrSkip(`history cap estimates: ${b.name}`, b.skip, () => {
    let store: KyselyStore;
    let cleanup: () => Promise<void>;
    let n = 0;
    /** A new endpoint holding `count` entries. */
    const endpointWith = async (count: number): Promise<string> => {
      const name = `est-${++n}`;
      await store.createEndpoint({ name, createdAt: 1, settings: {} });
      await store.insertHistory(entries(name, count));
      return name;
    };
    const visible = (endpoint: string) => store.countHistory(endpoint, {});
    before(async () => {
      ({ store, cleanup } = await b.open());
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    it('a count reports the removals it was made after on SQLite only; an estimate is taken only there', async () => {
      const ep = await endpointWith(10);
      const counted = await store.trimHistory(ep, ROOMY);
      assert.equal(counted.entries, 10);
      assert.equal(counted.estimated, undefined);
      if (b.name === 'postgres') {
        assert.equal(counted.removals, undefined, 'another instance may remove entries unseen');
        return;
      }
      assert.equal(typeof counted.removals, 'number');
      // An estimate two too high, nothing removed since: taken as it is, so two entries go.
      const r = await store.trimHistory(
        ep,
        { maxEntries: 10, maxBytes: 2 ** 40 },
        { entries: 12, bytes: counted.bytes, removals: counted.removals! },
      );
      assert.deepEqual([r.entries, r.deleted, r.estimated], [10, 2, true]);
      assert.equal(await visible(ep), 8);
    });

    it('PostgreSQL or SQLite: an estimate is not taken after a removal; the store counts', async () => {
      const removals: [string, (ep: string) => Promise<unknown>][] = [
        ['a filtered delete', (ep) => store.deleteHistory(ep, { status: 200 })],
        [
          'an entry deleted',
          async (ep) => store.deleteHistoryEntry(ep, (await store.listHistory(ep, {}, 1)).data[0]!.id),
        ],
        ['the retention', () => store.pruneHistory(t + 1, 1_000_000)],
        ['another endpoint deleted', async () => store.deleteEndpoint(await endpointWith(1))],
      ];
      for (const [what, remove] of removals) {
        const ep = await endpointWith(10);
        const counted = await store.trimHistory(ep, ROOMY);
        await remove(ep);
        const left = await visible(ep);
        // What the cap would believe: the count plus five written since (not written here).
        const stale = { entries: counted.entries + 5, bytes: counted.bytes, removals: counted.removals ?? 0 };
        const r = await store.trimHistory(ep, { maxEntries: 10, maxBytes: 2 ** 40 }, stale);
        assert.equal(r.estimated, undefined, what);
        assert.deepEqual([r.entries, r.deleted], [left, 0], `${what}: nothing the caps allow goes`);
        assert.equal(await visible(ep), left, what);
      }
    });

    it('a writer at the cap: entries deleted through the API are not made up for by trimming more', async () => {
      const ep = await endpointWith(0);
      const w = new HistoryWriter(store, undefined, { perEndpoint: { maxEntries: 200, maxBytes: 2 ** 40 } });
      const write = async (count: number) => {
        for (const e of entries(ep, count)) w.record(e);
        await w.flush();
      };
      await write(210);
      assert.equal(await visible(ep), 200, 'trimmed to the cap');
      await write(5);
      assert.equal(await visible(ep), 198, 'past the cap: down to the low-water mark (1 % below)');
      const ids = (await store.listHistory(ep, {}, 150)).data.map((e) => e.id);
      for (const id of ids) await store.deleteHistoryEntry(ep, id);
      await write(3);
      // The cap's estimate says 201 (over 200); the store holds 51: nothing may go.
      assert.equal(await visible(ep), 51);
      await write(160);
      assert.equal(await visible(ep), 198, 'past the cap again: down to the low-water mark');
      await w.close();
    });
  });
}
