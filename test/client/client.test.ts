/** The typed client against a live server on port 0: the routes, the waiting and expecting helpers, reset. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Mockingbird, MockingbirdError } from '../../src/client/index.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';

let app: TestApp;
let mb: Mockingbird;

before(async () => {
  app = await startApp({}, { listen: true });
  mb = new Mockingbird({ baseUrl: app.url, apiKey: ADMIN_KEY });
});
after(async () => app.stop());

test('endpoints: create, list, get, settings, delete; errors carry the API code', async () => {
  const shop = await mb.createEndpoint('client-shop');
  assert.equal((await shop.get()).name, 'client-shop');
  assert.ok((await mb.endpoints()).some((e) => e.name === 'client-shop'));
  const settings = await shop.updateSettings({ localTunnel: true });
  assert.equal(settings.localTunnel, true);
  assert.equal((await shop.settings()).localTunnel, true);
  assert.equal((await mb.ensureEndpoint('client-shop')).name, 'client-shop');
  await mb.deleteEndpoint('client-shop');
  await assert.rejects(shop.get(), (err: unknown) => {
    assert.ok(err instanceof MockingbirdError);
    assert.equal(err.status, 404);
    assert.equal(err.code, 'not_found');
    return true;
  });
  await assert.rejects(mb.createEndpoint('bad name!'), (err: unknown) => {
    assert.ok(err instanceof MockingbirdError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'validation_error');
    return true;
  });
});

test('a client without a key gets 401 missing_authentication', async () => {
  const anon = new Mockingbird({ baseUrl: app.url });
  await assert.rejects(anon.endpoints(), (err: unknown) => {
    assert.ok(err instanceof MockingbirdError);
    assert.equal(err.status, 401);
    return true;
  });
});

test('rules: add, list, get, update, replace, reorder, delete; the mock answers', async () => {
  const ep = await mb.ensureEndpoint('client-rules');
  const a = await ep.addRule({
    method: 'GET',
    conditions: [{ type: 'path', operator: 'equals', value: '/a' }],
    action: { type: 'mock', status: 200, body: 'A' },
  });
  const b = await ep.addRule({
    method: 'GET',
    conditions: [{ type: 'path', operator: 'equals', value: '/b' }],
    action: { type: 'mock', status: 201, body: 'B' },
  });
  assert.deepEqual(
    (await ep.rules()).map((r) => r.id),
    [a.id, b.id],
  );
  assert.equal((await ep.rule(a.id)).id, a.id);
  assert.deepEqual(await ep.reorderRules([b.id]), { reordered: 1 });
  assert.deepEqual(
    (await ep.rules()).map((r) => r.id),
    [b.id, a.id],
  );
  await ep.updateRule(a.id, { action: { type: 'mock', status: 202, body: 'A2' } });
  const res = await ep.fetch('/a');
  assert.equal(res.status, 202);
  assert.equal(await res.text(), 'A2');
  await ep.replaceRule(b.id, {
    method: 'POST',
    conditions: [{ type: 'path', operator: 'equals', value: '/b' }],
    action: { type: 'mock', status: 204 },
  });
  assert.equal((await ep.rule(b.id)).method, 'POST');
  assert.deepEqual(await ep.deleteRule(b.id), { id: b.id, deleted: true });
  assert.deepEqual(
    await ep.replaceRules([
      {
        conditions: [{ type: 'path', operator: 'starts_with', value: '/' }],
        action: { type: 'mock', status: 200, body: 'only' },
      },
    ]),
    {
      replaced: 1,
    },
  );
  assert.equal(await (await ep.fetch('/anything')).text(), 'only');
  assert.equal((await ep.deleteRules()).count, 1);
});

test('waitForRequest: an entry already recorded, then one that arrives later; a timeout rejects', async () => {
  const ep = await mb.ensureEndpoint('client-wait');
  await ep.reset();
  await ep.fetch('/early?x=1');
  const early = await ep.waitForRequest({ path: '/early' }, { timeout: 5000 });
  assert.equal(early.path, '/early?x=1');

  const waiting = ep.waitForRequest({ method: 'POST', path: /^\/late/ }, { timeout: 5000 });
  setTimeout(() => void ep.fetch('/late', { method: 'POST', body: 'x' }), 200);
  const late = await waiting;
  assert.equal(late.method, 'POST');
  assert.equal(late.path, '/late');

  const started = Date.now();
  await assert.rejects(
    ep.waitForRequest({ path: '/never' }, { timeout: 300 }),
    /No a request with path="\/never"/,
  );
  assert.ok(Date.now() - started < 3000);
});

test('requestCount and expectRequest count matching entries; reset empties the endpoint', async () => {
  const ep = await mb.ensureEndpoint('client-count');
  await ep.reset();
  await ep.putState([{ type: 'counter', key: 'hits', value: 3 }]);
  for (let i = 0; i < 3; i++) await ep.fetch('/ping');
  await ep.fetch('/pong', { method: 'DELETE' });
  await ep.waitForRequest({ method: 'DELETE' });
  // History is written in batches: wait until the three pings are there too.
  for (let i = 0; i < 50 && (await ep.requestCount({ path: '/ping' })) < 3; i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.equal(await ep.requestCount({ path: '/ping' }), 3);
  assert.equal(await ep.requestCount({ method: 'delete' }), 1);
  assert.equal(await ep.requestCount((e) => e.path.startsWith('/p')), 4);
  const pings = await ep.expectRequest({ path: '/ping' }, { times: 3 });
  assert.equal(pings.length, 3);
  await assert.rejects(ep.expectRequest({ path: '/ping' }, { times: 2 }), /Expected 2 × .* found 3/);
  await assert.rejects(ep.expectRequest({ path: '/nothing' }), /Expected at least 1 × .* found 0/);

  const one = pings[0]!;
  assert.equal((await ep.request(one.id)).id, one.id);
  assert.deepEqual(await ep.deleteRequest(one.id), { id: one.id, deleted: true });
  assert.equal(await ep.requestCount({ path: '/ping' }), 2);

  assert.equal((await ep.stateItem('counter', 'hits')).value, 3);
  await ep.reset();
  assert.equal(await ep.requestCount(), 0);
  assert.equal((await ep.state()).data.length, 0);
  assert.equal((await ep.rules()).length, 0);
});

test('requestCount pages through more than one page of history', async () => {
  const ep = await mb.ensureEndpoint('client-pages');
  await ep.reset();
  for (let i = 0; i < 105; i++) await ep.fetch(`/n/${i}`);
  for (let i = 0; i < 100 && (await ep.requests({ limit: 100 })).data.length < 100; i++)
    await new Promise((r) => setTimeout(r, 50));
  let count = 0;
  for (let i = 0; i < 100 && (count = await ep.requestCount()) < 105; i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.equal(count, 105);
});

test('events: the stream delivers named events with parsed data', async () => {
  const ep = await mb.ensureEndpoint('client-events');
  const stream = await ep.events();
  await ep.updateSettings({ localTunnel: true });
  for await (const ev of stream) {
    if (ev.event !== 'settings.updated') continue;
    assert.equal(typeof ev.data, 'object');
    break;
  }
  stream.close();
});

test('state, keys, blobs and the API document', async () => {
  const ep = await mb.ensureEndpoint('client-misc');
  assert.deepEqual(await ep.putState([{ type: 'string', key: 'k', value: 'v' }]), { created: 1, updated: 0 });
  assert.deepEqual(await ep.deleteStateItem('string', 'k'), { key: 'k', deleted: true });
  await assert.rejects(
    ep.stateItem('string', 'k'),
    (e: unknown) => e instanceof MockingbirdError && e.status === 404,
  );

  const key = await mb.createKey('client-misc');
  assert.match(key.key, /^mb_/);
  assert.ok((await mb.keys()).some((k) => k.id === key.id));
  const scoped = new Mockingbird({ baseUrl: app.url, apiKey: key.key });
  assert.equal((await scoped.endpoint('client-misc').get()).name, 'client-misc');
  assert.deepEqual(await mb.deleteKey(key.id), { id: key.id, deleted: true });

  const blob = await ep.uploadBlob('{"big":true}', 'big.json');
  assert.ok((await ep.blobs()).some((b) => b.blobPath === blob.blobPath));
  assert.deepEqual(await ep.deleteBlob(blob.blobPath), { blobPath: blob.blobPath, deleted: true });

  const doc = await mb.openapi();
  assert.equal(typeof doc.openapi, 'string');
});

test('url() is the path form, which Node’s own fetch reaches (no *.localhost name to resolve)', async () => {
  const shop = await mb.createEndpoint('client-url');
  assert.equal(shop.url(), `${app.url}/e/client-url`);
  assert.equal(shop.url('/users/7'), `${app.url}/e/client-url/users/7`);
  assert.equal(shop.url('users/7?x=1'), `${app.url}/e/client-url/users/7?x=1`);
  const res = await fetch(shop.url('/users/7?x=1'));
  await res.arrayBuffer();
  assert.equal((await shop.waitForRequest({ method: 'GET' }, { timeout: 2000 })).path, '/users/7?x=1');
  await mb.deleteEndpoint('client-url');
});
