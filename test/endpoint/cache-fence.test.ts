/**
 * The endpoint cache with a fence (several instances, REDIS_URL): an entry is served while it is as
 * current as the shared version, read again once per version however many requests wait, dropped
 * when the endpoint no longer exists, and served as it is when the version cannot be known. Without
 * a fence the cache answers held entries at once (`loaded`), as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EndpointCache, type EndpointResolver, type VersionCheck } from '../../src/endpoint/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import type { EndpointRecord } from '../../src/store/index.js';

const asIs: EndpointResolver<{ record: EndpointRecord; settings: unknown; plan: null }> = (record) => ({
  record,
  settings: record.settings,
  plan: null,
});

/** A store whose `shop` has `version`; reads are counted and can be held until released. */
function versionedStore() {
  const s = {
    version: 1,
    exists: true,
    reads: 0,
    async getEndpoint(name: string): Promise<EndpointRecord | undefined> {
      s.reads++;
      const version = s.version;
      await new Promise((r) => setImmediate(r));
      return s.exists ? { name, createdAt: 1, settings: { v: version }, configVersion: version } : undefined;
    },
  };
  return s;
}

function sharedVersion(initial: number | null | undefined) {
  const f = {
    shared: initial,
    endpoint: async (): Promise<number | null | undefined> => f.shared,
  } satisfies VersionCheck & { shared: number | null | undefined };
  return f;
}

test('an entry is served while current, and read again once when the shared version moves', async () => {
  const store = versionedStore();
  const fence = sharedVersion(1);
  const metrics = createMetrics();
  const cache = new EndpointCache(store, asIs, 100, { fence, metrics });
  const first = await cache.get('shop');
  assert.equal(first?.record.configVersion, 1);
  assert.equal(await cache.get('shop'), first);
  assert.equal(cache.loaded('shop'), undefined, 'with a fence every request is checked');
  assert.equal(store.reads, 1);

  store.version = 2;
  fence.shared = 2;
  const all = await Promise.all(Array.from({ length: 20 }, () => cache.get('shop')));
  assert.equal(store.reads, 2, 'twenty requests, one read');
  assert.ok(all.every((e) => e === all[0]));
  assert.deepEqual(all[0]?.record.settings, { v: 2 });
  assert.match(await metrics.text(), /mockingbird_config_reloads_total 1\n/);
});

test('a deleted endpoint is dropped; an unknown version serves what is held', async () => {
  const store = versionedStore();
  const fence = sharedVersion(1);
  const cache = new EndpointCache(store, asIs, 100, { fence });
  const held = await cache.get('shop');
  fence.shared = undefined; // neither Redis nor PostgreSQL answers
  assert.equal(await cache.get('shop'), held);
  assert.equal(store.reads, 1);
  fence.shared = null; // the endpoint is gone
  assert.equal(await cache.get('shop'), undefined);
  fence.shared = 5;
  store.exists = false;
  assert.equal(await cache.get('shop'), undefined, 'a version newer than any record: read, not found');
});

test('an entry read with a newer record than the shared version is current for both', async () => {
  const store = versionedStore();
  store.version = 4;
  const fence = sharedVersion(3);
  const cache = new EndpointCache(store, asIs, 100, { fence });
  await cache.get('shop');
  fence.shared = 4;
  await cache.get('shop');
  assert.equal(store.reads, 1);
});

test('without a fence, a held entry is answered at once', async () => {
  const store = versionedStore();
  const cache = new EndpointCache(store, asIs);
  const e = await cache.get('shop');
  assert.equal(cache.loaded('shop'), e);
});
