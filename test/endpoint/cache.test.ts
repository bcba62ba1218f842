/** The endpoint cache: one store read per endpoint until it changes; changes through the API apply at once. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EndpointCache, type EndpointResolver } from '../../src/endpoint/index.js';
import { MemoryEventBus } from '../../src/events/index.js';
import type { EndpointRecord } from '../../src/store/index.js';
import { adminAuth, startApp } from '../helpers/app.js';

/** Resolves a record into itself (the cache's own behaviour does not depend on what it resolves to). */
const asIs: EndpointResolver<{ record: EndpointRecord; settings: unknown; plan: null }> = (record) => ({
  record,
  settings: record.settings,
  plan: null,
});

function countingStore(records: Record<string, EndpointRecord>) {
  const reads: string[] = [];
  return {
    reads,
    async getEndpoint(name: string) {
      reads.push(name);
      return records[name] ? { ...records[name] } : undefined;
    },
  };
}

test('an endpoint is read once, concurrent requests included, until invalidated', async () => {
  const store = countingStore({ shop: { name: 'shop', createdAt: 1, settings: {} } });
  const cache = new EndpointCache(store, asIs);
  const [a, b] = await Promise.all([cache.get('shop'), cache.get('shop')]);
  assert.equal(a, b);
  assert.equal(await cache.get('shop'), a);
  assert.deepEqual(store.reads, ['shop']);
  cache.invalidate('shop');
  const c = await cache.get('shop');
  assert.notEqual(c, a);
  assert.deepEqual(store.reads, ['shop', 'shop']);
});

test('unknown endpoints are not kept: one created later is found at once', async () => {
  const records: Record<string, EndpointRecord> = {};
  const cache = new EndpointCache(countingStore(records), asIs);
  assert.equal(await cache.get('late'), undefined);
  records['late'] = { name: 'late', createdAt: 1, settings: {} };
  assert.equal((await cache.get('late'))?.record.name, 'late');
});

test('the cache holds at most its bound, dropping the oldest first', async () => {
  const records: Record<string, EndpointRecord> = {};
  for (const n of ['a', 'b', 'c']) records[n] = { name: n, createdAt: 1, settings: {} };
  const store = countingStore(records);
  const cache = new EndpointCache(store, asIs, 2);
  await cache.get('a');
  await cache.get('b');
  await cache.get('c'); // drops a
  await cache.get('b');
  await cache.get('a');
  assert.deepEqual(store.reads, ['a', 'b', 'c', 'a']);
});

test('settings changed and an endpoint deleted through the API apply to the next request', async () => {
  const app = await startApp();
  try {
    const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
      app.inject({ method, url, headers: adminAuth, ...(payload ? { payload } : {}) });
    assert.equal((await inject('POST', '/api/v2/endpoints', { name: 'cached' })).statusCode, 201);
    assert.equal((await inject('GET', '/e/cached/x')).statusCode, 200);
    await inject('PATCH', '/api/v2/endpoints/cached/settings', {
      defaultResponse: { status: 418, body: 'tea' },
    });
    const changed = await inject('GET', '/e/cached/x');
    assert.equal(changed.statusCode, 418);
    assert.equal(changed.body, 'tea');
    assert.equal((await inject('DELETE', '/api/v2/endpoints/cached')).statusCode, 200);
    assert.equal((await inject('GET', '/e/cached/x')).statusCode, 404);
  } finally {
    await app.stop();
  }
});

test('loaded: the record get resolves to once read, nothing while reading or for an unknown name, nothing once forgotten', async () => {
  const records: Record<string, EndpointRecord> = {};
  for (const n of ['a', 'b', 'c']) records[n] = { name: n, createdAt: 1, settings: {} };
  const cache = new EndpointCache(countingStore(records), asIs, 2);
  assert.equal(cache.loaded('a'), undefined, 'not read yet');
  const reading = cache.get('a');
  assert.equal(cache.loaded('a'), undefined, 'being read');
  const a = await reading;
  assert.equal(cache.loaded('a'), a);
  assert.equal(await cache.get('nope'), undefined);
  assert.equal(cache.loaded('nope'), undefined, 'unknown names are not held');
  cache.invalidate('a');
  assert.equal(cache.loaded('a'), undefined, 'invalidated');
  const a2 = await cache.get('a');
  assert.notEqual(a2, a);
  assert.equal(cache.loaded('a'), a2, 'the record read again');
  // A read that ends after its entry was invalidated leaves nothing behind.
  const stale = cache.get('b');
  cache.invalidate('b');
  await stale;
  assert.equal(cache.loaded('b'), undefined);
  await cache.get('b');
  await cache.get('c'); // the bound is 2: drops a, the oldest
  assert.equal(cache.loaded('a'), undefined, 'dropped by the bound');
  assert.equal(cache.loaded('c')?.record.name, 'c');
  cache.clear();
  assert.equal(cache.loaded('b'), undefined);
  assert.equal(cache.loaded('c'), undefined);
});

test('a name the endpoint routes refuse is 404 even when the cache holds a record under it', async () => {
  const app = await startApp();
  try {
    // Stored and loaded behind the API's back: the request path checks the name before the cache.
    await app.ctx.store.createEndpoint({ name: 'tools', createdAt: 1, settings: {} });
    assert.equal((await app.ctx.endpoints.get('tools'))?.record.name, 'tools');
    assert.equal(app.ctx.endpoints.loaded('tools')?.record.name, 'tools');
    assert.equal((await app.inject({ method: 'GET', url: '/e/tools/x' })).statusCode, 404);
  } finally {
    await app.stop();
  }
});

test('an entry is resolved once, when it is built: every request reads the same settings and plan', async () => {
  const records: Record<string, EndpointRecord> = {
    shop: { name: 'shop', createdAt: 1, settings: { locale: 'de' } },
  };
  const resolved: string[] = [];
  const counting: EndpointResolver<{ record: EndpointRecord; settings: unknown; plan: null }> = (record) => {
    resolved.push(record.name);
    return asIs(record);
  };
  const bus = new MemoryEventBus();
  const cache = new EndpointCache(countingStore(records), counting);
  cache.listen(bus);
  const [a, b] = await Promise.all([cache.get('shop'), cache.get('shop')]);
  const c = await cache.get('shop');
  assert.equal(cache.loaded('shop'), a);
  assert.ok(a && a === b && b === c, 'one resolved endpoint per entry');
  assert.deepEqual(resolved, ['shop'], 'resolved once for four reads');
  assert.deepEqual(a.settings, { locale: 'de' });

  records['shop'] = { name: 'shop', createdAt: 1, settings: { locale: 'fr' } };
  bus.publishChange({ endpoint: 'shop', what: 'settings' });
  const d = await cache.get('shop');
  assert.notEqual(d, a);
  assert.deepEqual(d?.settings, { locale: 'fr' }, 'the change event rebuilt the settings');
  await cache.get('shop');
  assert.deepEqual(resolved, ['shop', 'shop'], 'resolved again once after the change, not per read');
});

test('a resolver that throws fails the read and keeps nothing: the next read tries again', async () => {
  const store = countingStore({ shop: { name: 'shop', createdAt: 1, settings: {} } });
  let fail = true;
  const cache = new EndpointCache(store, (record) => {
    if (fail) throw new Error('unreadable');
    return asIs(record);
  });
  await assert.rejects(cache.get('shop'), /unreadable/);
  assert.equal(cache.loaded('shop'), undefined);
  fail = false;
  assert.equal((await cache.get('shop'))?.record.name, 'shop');
  assert.deepEqual(store.reads, ['shop', 'shop']);
});

test("the server's cache resolves the effective settings and the plan once per entry, and again after a change", async () => {
  const app = await startApp();
  try {
    const inject = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
      app.inject({ method, url, headers: adminAuth, ...(payload ? { payload } : {}) });
    assert.equal((await inject('POST', '/api/v2/endpoints', { name: 'once' })).statusCode, 201);
    // Counts the resolutions of the running server's cache (its resolver is a field: replaced here).
    const cache = app.ctx.endpoints as { resolve: typeof app.ctx.endpoints.resolve };
    const resolve = cache.resolve;
    let resolutions = 0;
    cache.resolve = (record) => {
      resolutions++;
      return resolve(record);
    };
    for (let i = 0; i < 5; i++) assert.equal((await inject('GET', '/e/once/x')).statusCode, 200);
    assert.equal(resolutions, 1, 'five requests, one resolution');
    const first = app.ctx.endpoints.loaded('once');
    assert.ok(first);
    assert.equal(first.settings.rateLimit.enabled, false, 'the defaults filled in');
    assert.equal(first.settings.plan, app.ctx.config.defaultPlan);
    assert.equal(first.plan.name, app.ctx.config.defaultPlan);

    const patched = await inject('PATCH', '/api/v2/endpoints/once/settings', {
      rateLimit: { enabled: true, rate: 1, period: 'Hour' },
    });
    assert.equal(patched.statusCode, 200);
    assert.equal(app.ctx.endpoints.loaded('once'), undefined, 'the change dropped the entry');
    assert.equal((await inject('GET', '/e/once/x')).statusCode, 200);
    assert.equal((await inject('GET', '/e/once/x')).statusCode, 429, 'the rebuilt settings apply');
    assert.equal(resolutions, 2, 'resolved once more after the change');
    const second = app.ctx.endpoints.loaded('once');
    assert.ok(second && second !== first);
    assert.deepEqual(second.settings.rateLimit, { enabled: true, rate: 1, period: 'Hour' });
  } finally {
    await app.stop();
  }
});
