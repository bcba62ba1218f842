/**
 * The mTLS rows of the Store (store/mtls-table.ts), against SQLite always and PostgreSQL when
 * DATABASE_URL is set: one CA per endpoint (the first stored wins), certificates listed oldest first,
 * the per-endpoint cap, deletion, and an endpoint's deletion taking both with it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KyselyStore, MtlsCertRecord } from '../../src/store/index.js';
import { STORE_BACKENDS } from '../helpers/store-backends.js';

function cert(id: string, endpoint: string, createdAt: number): MtlsCertRecord {
  return {
    id,
    endpoint,
    name: `name ${id}`,
    serial: `0${id}`,
    fingerprint: `AA:${id}`,
    certPem: `pem ${id}`,
    expiresAt: createdAt + 1000,
    createdAt,
  };
}

for (const b of STORE_BACKENDS) {
  describe(`mTLS store: ${b.name}`, { skip: b.skip }, () => {
    let store: KyselyStore;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await b.open());
      await store.createEndpoint({ name: 'shop', createdAt: 1, settings: {} });
      await store.createEndpoint({ name: 'other', createdAt: 1, settings: {} });
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    it('one CA per endpoint: the first stored wins', async () => {
      assert.equal(await store.getMtlsCa('shop'), undefined);
      const first = { endpoint: 'shop', certPem: 'ca1', keyEnc: 'v1.k1', createdAt: 10 };
      assert.deepEqual(await store.putMtlsCaIfAbsent(first), first);
      assert.deepEqual(await store.putMtlsCaIfAbsent({ ...first, certPem: 'ca2', keyEnc: 'v1.k2' }), first);
      assert.deepEqual(await store.getMtlsCa('shop'), first);
    });

    it('certificates: listed oldest first, per endpoint, capped, deleted one by one', async () => {
      assert.equal(await store.insertMtlsCert(cert('b', 'shop', 20), 3), true);
      assert.equal(await store.insertMtlsCert(cert('a', 'shop', 10), 3), true);
      assert.equal(await store.insertMtlsCert(cert('o', 'other', 5), 3), true);
      assert.equal(await store.insertMtlsCert(cert('c', 'shop', 30), 3), true);
      assert.equal(await store.insertMtlsCert(cert('d', 'shop', 40), 3), false, 'over the cap');
      assert.deepEqual(await store.listMtlsCerts('shop'), [
        cert('a', 'shop', 10),
        cert('b', 'shop', 20),
        cert('c', 'shop', 30),
      ]);
      assert.equal(await store.deleteMtlsCert('other', 'a'), false, "another endpoint's id");
      assert.equal(await store.deleteMtlsCert('shop', 'a'), true);
      assert.equal(await store.deleteMtlsCert('shop', 'a'), false);
      assert.equal(await store.insertMtlsCert(cert('d', 'shop', 40), 3), true, 'room again');
      assert.deepEqual(
        (await store.listMtlsCerts('shop')).map((c) => c.id),
        ['b', 'c', 'd'],
      );
    });

    it('the cap holds when insertions race (exactly `max` succeed)', async () => {
      await store.createEndpoint({ name: 'racy', createdAt: 1, settings: {} });
      await store.putMtlsCaIfAbsent({ endpoint: 'racy', certPem: 'ca', keyEnc: 'v1.k', createdAt: 1 });
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.insertMtlsCert(cert(`r${i}`, 'racy', 100 + i), 3)),
      );
      assert.equal(results.filter(Boolean).length, 3);
      assert.equal((await store.listMtlsCerts('racy')).length, 3);
    });

    it("deleting an endpoint deletes its CA and certificates, not another's", async () => {
      await store.putMtlsCaIfAbsent({ endpoint: 'other', certPem: 'x', keyEnc: 'v1.y', createdAt: 1 });
      assert.equal(await store.deleteEndpoint('shop'), true);
      assert.equal(await store.getMtlsCa('shop'), undefined);
      assert.deepEqual(await store.listMtlsCerts('shop'), []);
      assert.ok(await store.getMtlsCa('other'));
      assert.equal((await store.listMtlsCerts('other')).length, 1);
    });
  });
}
