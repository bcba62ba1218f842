/**
 * Configuration versions (src/store/config-version.ts), on every store backend: a change of an
 * endpoint moves its version in the change's own transaction (a failed or empty write moves nothing),
 * versions only grow (also across a deletion and a new endpoint of the same name), the store's own
 * transactions join the change's, and `swapMeta` sets only what it expects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KyselyStore } from '../../src/store/index.js';
import { STORE_BACKENDS } from '../helpers/store-backends.js';

const NOW = 1_767_225_600_000;

for (const backend of STORE_BACKENDS) {
  void describe(`configuration versions (${backend.name})`, { skip: backend.skip }, () => {
    let store: KyselyStore;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await backend.open());
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    const create = (name: string) =>
      store.changeEndpoint(name, (tx) => tx.createEndpoint({ name, createdAt: NOW, settings: {} }), {
        unchanged: (made) => !made,
      });

    void it('creating an endpoint gives it a version; each change moves it on, read back by both reads', async () => {
      const made = await create('shop');
      assert.equal(made.result, true);
      assert.ok(made.version! > 0);
      assert.equal(await store.getConfigVersion('shop'), made.version);
      const changed = await store.changeEndpoint('shop', (tx) =>
        tx.appendRule('shop', { id: 'r1', data: { a: 1 } }),
      );
      assert.ok(changed.version! > made.version!);
      const rec = await store.getEndpoint('shop');
      assert.equal(rec?.configVersion, changed.version);
      assert.equal(await store.getConfigVersion('shop'), changed.version);
      assert.deepEqual(
        (await store.listConfigVersions()).find((v) => v.endpoint === 'shop'),
        { endpoint: 'shop', version: changed.version },
      );
      assert.equal(await store.getConfigVersion('nope'), undefined);
    });

    void it('a write that changed nothing, or failed, leaves the version (and the write) as they were', async () => {
      await create('quiet');
      const before = await store.getConfigVersion('quiet');
      const none = await store.changeEndpoint('quiet', (tx) => tx.deleteRule('quiet', 'no-such-rule'), {
        unchanged: (deleted) => !deleted,
      });
      assert.deepEqual(none, { result: false, version: undefined });
      await assert.rejects(
        store.changeEndpoint('quiet', async (tx) => {
          await tx.appendRule('quiet', { id: 'rolled-back', data: {} });
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(await store.getConfigVersion('quiet'), before);
      assert.equal(await store.getRule('quiet', 'rolled-back'), undefined, 'the write was rolled back too');
      assert.deepEqual(await create('quiet'), { result: false, version: undefined }, 'a taken name');
    });

    void it('an endpoint deleted and made again starts past every version it had', async () => {
      await create('phoenix');
      const last = (
        await store.changeEndpoint('phoenix', (tx) => tx.updateEndpointSettings('phoenix', { x: 1 }))
      ).version!;
      const gone = await store.changeEndpoint('phoenix', (tx) => tx.deleteEndpoint('phoenix'), {
        unchanged: (deleted) => !deleted,
      });
      assert.ok(gone.version! > last, 'the deletion takes a version of its own');
      assert.equal(await store.getConfigVersion('phoenix'), undefined);
      const again = await create('phoenix');
      assert.ok(again.version! > gone.version!);
    });

    void it("the store's own transactions (a rule list, a blob quota) run inside the change's", async () => {
      await create('joined');
      const r = await store.changeEndpoint('joined', async (tx) => {
        await tx.replaceRules('joined', [
          { id: 'j1', data: {} },
          { id: 'j2', data: {} },
        ]);
        return tx.putBlob(
          {
            endpoint: 'joined',
            name: 'b',
            contentType: 'text/plain',
            size: 1,
            createdAt: NOW,
            data: Buffer.from('x'),
          },
          { endpoint: 100, total: 1_000_000 },
        );
      });
      assert.equal(r.result, true);
      assert.deepEqual(
        (await store.listRules('joined')).map((x) => x.id),
        ['j1', 'j2'],
      );
      assert.equal((await store.getBlob('joined', 'b'))?.size, 1);
    });

    void it('a change that may claim a domain moves the domains version; others leave it', async () => {
      await create('claims');
      const d0 = await store.getDomainsVersion();
      await store.changeEndpoint('claims', (tx) => tx.updateEndpointSettings('claims', { y: 1 }));
      assert.equal(await store.getDomainsVersion(), d0);
      const r = await store.changeEndpoint(
        'claims',
        (tx) => tx.updateEndpointSettings('claims', { customDomain: { enabled: true, domain: 'a.test' } }),
        { domains: true },
      );
      assert.equal(r.domainsVersion, d0 + 1);
      assert.equal(await store.getDomainsVersion(), d0 + 1);
    });

    void it('concurrent changes of one endpoint each get a version of their own', async () => {
      await create('busy');
      const all = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.changeEndpoint('busy', (tx) => tx.appendRule('busy', { id: `busy-${i}`, data: {} })),
        ),
      );
      const versions = all.map((r) => r.version!);
      assert.equal(new Set(versions).size, 8);
      assert.equal(await store.getConfigVersion('busy'), Math.max(...versions));
      assert.equal(await store.countRules('busy'), 8);
    });

    void it('swapMeta sets, replaces and deletes only what it expects', async () => {
      assert.equal(await store.swapMeta('k', undefined, 'one'), true);
      assert.equal(await store.swapMeta('k', undefined, 'other'), false, 'present already');
      assert.equal(await store.swapMeta('k', 'nope', 'two'), false);
      assert.equal(await store.swapMeta('k', 'one', 'two'), true);
      assert.equal(await store.getMeta('k'), 'two');
      assert.equal(await store.swapMeta('k', 'one', undefined), false);
      assert.equal(await store.swapMeta('k', 'two', undefined), true);
      assert.equal(await store.getMeta('k'), undefined);
    });
  });
}
