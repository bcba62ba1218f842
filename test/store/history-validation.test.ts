/**
 * Contract violations in the history (SPEC §7), on every Store: both lists round-trip (an empty one
 * stays `[]`, an unchecked one stays absent), `validation=failed|passed` filters the list, the count
 * and the bulk delete, and a row older than the columns reads as unchecked.
 */
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { ContractViolation, HistoryEntry, KyselyStore, NewHistoryEntry } from '../../src/store/index.js';
import { entry as historyEntry } from '../helpers/history-fixtures.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { STORE_BACKENDS } from '../helpers/store-backends.js';

const BAD_QUERY: ContractViolation = { in: 'query', path: 'limit', message: 'must be integer' };
const BAD_BODY: ContractViolation = {
  in: 'body',
  path: '/items/0/name',
  message: "must have property 'name'",
};

let seq = 0;
function entry(endpoint: string, over: Partial<HistoryEntry> = {}): NewHistoryEntry {
  seq++;
  return historyEntry(endpoint, {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    createdAt: 1_700_000_000_000 + seq * 1000,
    ...over,
  });
}

for (const b of STORE_BACKENDS) {
  suiteOrSkip(`history contract violations: ${b.name}`, b.skip, () => {
    let store: KyselyStore;
    let cleanup: () => Promise<void>;
    /** ids by what the entry holds. */
    const ids: Record<string, string> = {};
    before(async () => {
      ({ store, cleanup } = await b.open());
      await store.createEndpoint({ name: 'shop', createdAt: Date.now(), settings: {} });
      const entries = {
        unchecked: entry('shop'),
        kept: entry('shop', { validation: [], responseValidation: [] }),
        keptNoResponse: entry('shop', { validation: [] }),
        badRequest: entry('shop', { validation: [BAD_QUERY, BAD_BODY], responseValidation: [] }),
        badResponse: entry('shop', {
          validation: [],
          responseValidation: [{ in: 'body', path: '/id', message: 'must be string' }],
        }),
        onlyResponseChecked: entry('shop', { responseValidation: [] }),
      };
      for (const [k, e] of Object.entries(entries)) ids[k] = e.entry.id;
      await store.insertHistory(Object.values(entries));
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    it('both lists round-trip as written; an empty list stays [], an unchecked entry has neither', async () => {
      const bad = await store.getHistory('shop', ids['badRequest']!);
      assert.deepEqual(bad?.validation, [BAD_QUERY, BAD_BODY]);
      assert.deepEqual(bad?.responseValidation, []);
      const kept = await store.getHistory('shop', ids['keptNoResponse']!);
      assert.deepEqual(kept?.validation, []);
      assert.equal(kept !== undefined && 'responseValidation' in kept, false);
      const unchecked = await store.getHistory('shop', ids['unchecked']!);
      assert.ok(unchecked);
      assert.equal('validation' in unchecked, false);
      assert.equal('responseValidation' in unchecked, false);
      // The list reads the same rows the same way.
      const page = await store.listHistory('shop', {}, 100);
      assert.deepEqual(page.data.find((e) => e.id === ids['badResponse'])?.responseValidation, [
        { in: 'body', path: '/id', message: 'must be string' },
      ]);
    });

    it('validation=failed: either list not empty; passed: checked and both empty; unchecked matches neither', async () => {
      const failed = await store.listHistory('shop', { validation: 'failed' }, 100);
      assert.deepEqual(
        new Set(failed.data.map((e) => e.id)),
        new Set([ids['badRequest'], ids['badResponse']]),
      );
      const passed = await store.listHistory('shop', { validation: 'passed' }, 100);
      assert.deepEqual(
        new Set(passed.data.map((e) => e.id)),
        new Set([ids['kept'], ids['keptNoResponse'], ids['onlyResponseChecked']]),
      );
      assert.equal(await store.countHistory('shop', { validation: 'failed' }), 2);
      assert.equal(await store.countHistory('shop', { validation: 'passed' }), 3);
      // Combined with another filter by AND.
      assert.equal(await store.countHistory('shop', { validation: 'failed', method: 'POST' }), 0);
    });

    it('a row written before the columns existed (null) reads as unchecked and matches neither filter', async () => {
      const old = entry('shop', { validation: [BAD_QUERY] });
      await store.insertHistory([old]);
      await sql`UPDATE requests SET validation = NULL, response_validation = NULL WHERE id = ${old.entry.id}`.execute(
        store.db,
      );
      const read = await store.getHistory('shop', old.entry.id);
      assert.ok(read);
      assert.equal('validation' in read, false);
      assert.equal(await store.countHistory('shop', { validation: 'failed' }), 2);
      assert.equal(await store.countHistory('shop', { validation: 'passed' }), 3);
    });

    it('a bulk delete with validation=failed removes exactly the failed entries', async () => {
      assert.equal(await store.deleteHistory('shop', { validation: 'failed' }), 2);
      assert.equal(await store.countHistory('shop', { validation: 'failed' }), 0);
      assert.equal(await store.countHistory('shop', { validation: 'passed' }), 3);
      assert.equal(await store.getHistory('shop', ids['badRequest']!), undefined);
      assert.ok(await store.getHistory('shop', ids['unchecked']!));
    });
  });
}
