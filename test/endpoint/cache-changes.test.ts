/**
 * The endpoint cache invalidates itself: it listens for the changes commands announce on the event
 * bus and drops the changed endpoint's entry, whoever announced it (an API route, the configuration
 * file's reload, another instance on a shared bus). No other part of the server tells it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadConfigFile } from '../../src/config-file/index.js';
import { EndpointCache, type EndpointResolver } from '../../src/endpoint/index.js';
import { MemoryEventBus } from '../../src/events/index.js';
import type { EndpointRecord } from '../../src/store/index.js';
import { adminAuth, startApp } from '../helpers/app.js';
import { tempFiles } from '../config-file/helpers.js';

/** Resolves a record into itself (the cache's own behaviour does not depend on what it resolves to). */
const asIs: EndpointResolver<{ record: EndpointRecord; settings: unknown; plan: null }> = (record) => ({
  record,
  settings: record.settings,
  plan: null,
});

function store(records: Record<string, EndpointRecord>) {
  return { getEndpoint: async (name: string) => (records[name] ? { ...records[name] } : undefined) };
}

test('a change announced for an endpoint drops its entry, and only its entry', async () => {
  const records: Record<string, EndpointRecord> = {
    shop: { name: 'shop', createdAt: 1, settings: {} },
    other: { name: 'other', createdAt: 1, settings: {} },
  };
  const bus = new MemoryEventBus();
  const cache = new EndpointCache(store(records), asIs);
  const stop = cache.listen(bus);
  const shop = await cache.get('shop');
  const other = await cache.get('other');
  assert.equal(cache.loaded('shop'), shop);
  bus.publishChange({
    endpoint: 'shop',
    what: 'rules',
    notice: { name: 'rules.deleted', data: { count: 0 } },
  });
  assert.equal(cache.loaded('shop'), undefined, 'dropped before publishChange returns');
  assert.equal(cache.loaded('other'), other, 'another endpoint keeps its entry');
  assert.notEqual(await cache.get('shop'), shop, 'read afresh');
  // Without a notice too (a change the dashboards are not told of).
  bus.publishChange({ endpoint: 'other', what: 'certificates' });
  assert.equal(cache.loaded('other'), undefined);
  // Stopped listening: a change no longer reaches it.
  stop();
  const again = await cache.get('shop');
  bus.publishChange({ endpoint: 'shop', what: 'settings' });
  assert.equal(cache.loaded('shop'), again);
});

test('listening for changes does not make an endpoint look watched by dashboards', () => {
  const bus = new MemoryEventBus();
  new EndpointCache(store({}), asIs).listen(bus);
  // The request path skips building request.created for endpoints no dashboard watches.
  assert.equal(bus.isListening('shop'), false);
});

test("a configuration file reloaded in a running server: the cached endpoint's next request sees it", async (t) => {
  const app = await startApp({}, { listen: true });
  t.after(() => app.stop());
  const res = await fetch(`${app.url}/api/v2/endpoints`, {
    method: 'POST',
    headers: { ...adminAuth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'shop' }),
  });
  assert.equal(res.status, 201);
  const first = await fetch(`${app.url}/e/shop/x`);
  assert.equal(first.status, 200);
  await first.text();
  assert.ok(app.ctx.endpoints.loaded('shop'), 'the request left the endpoint in the cache');

  const heard: string[] = [];
  app.ctx.events.subscribeChanges((c) => heard.push(`${c.endpoint} ${c.what}`));
  const dir = tempFiles({
    'm.yaml': 'endpoints:\n  shop:\n    settings:\n      defaultResponse: { status: 418, body: tea }\n',
  });
  await loadConfigFile(app.ctx, join(dir, 'm.yaml'));
  assert.ok(heard.includes('shop settings'), heard.join(', '));
  assert.equal(app.ctx.endpoints.loaded('shop'), undefined, 'the reload dropped the entry');
  const after = await fetch(`${app.url}/e/shop/x`);
  assert.equal(after.status, 418);
  assert.equal(await after.text(), 'tea');
});
