import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import type { MockEvent } from '../../src/events/index.js';
import { assertDetail, assertError, call, createEndpoint, scopedKey } from '../helpers/api-helpers.js';

let app: TestApp;
before(async () => {
  app = await startApp({ plansFile: undefined });
  await createEndpoint(app, 'conf');
});
after(async () => {
  await app.stop();
});

void test('GET settings shows every field with its default', async () => {
  await createEndpoint(app, 'fresh');
  const r = await call(app, 'GET', '/endpoints/fresh/settings');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, {
    proxy: { ignoreSSLErrors: false, record: false },
    localTunnel: false,
    cors: { origins: [] },
    rateLimit: { enabled: false, rate: 100, period: 'Minute' },
    security: { enabled: false, headerKey: '', headerValue: '' },
    defaultResponse: { status: 200, headers: {} },
    rules: { enabled: true },
    crud: { autoDelete: false },
    customDomain: { enabled: false },
    mtls: { enabled: false },
    locale: 'en',
    plan: 'unlimited',
    faults: {},
    openapi: { validation: 'report' },
    chaos: { percent: 0 },
  });
  assertError(await call(app, 'GET', '/endpoints/nope-nope/settings'), 404, 'not_found');
});

void test('PATCH merges: nested objects field by field, other settings untouched', async () => {
  let r = await call(app, 'PATCH', '/endpoints/conf/settings', {
    rateLimit: { enabled: true, rate: 5 },
    cors: { origins: ['https://app.example.com'] },
    locale: 'de_AT',
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.rateLimit, { enabled: true, rate: 5, period: 'Minute' });
  r = await call(app, 'PATCH', '/endpoints/conf/settings', {
    rateLimit: { period: 'Second' },
    proxy: { targetUrl: 'http://127.0.0.1:9/api' },
    security: { enabled: true, headerKey: 'x-token', headerValue: 's3cret' },
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.rateLimit, { enabled: true, rate: 5, period: 'Second' });
  assert.deepEqual(r.body.cors, { origins: ['https://app.example.com'] });
  assert.equal(r.body.locale, 'de_AT');
  assert.deepEqual(r.body.proxy, {
    targetUrl: 'http://127.0.0.1:9/api',
    ignoreSSLErrors: false,
    record: false,
  });
  const again = await call(app, 'GET', '/endpoints/conf/settings');
  assert.deepEqual(again.body, r.body);
  r = await call(app, 'PATCH', '/endpoints/conf/settings', { proxy: { targetUrl: null } });
  assert.deepEqual(
    r.body.proxy,
    { ignoreSSLErrors: false, record: false },
    'null clears: left out, never null',
  );
  r = await call(app, 'PATCH', '/endpoints/conf/settings', { security: { enabled: false } });
  assert.equal(r.body.security.headerKey, 'x-token');
});

void test('PATCH validation errors carry JSON-pointer paths and the received value', async () => {
  assertDetail(
    await call(app, 'PATCH', '/endpoints/conf/settings', { rateLimit: { period: 'Day' } }),
    '/rateLimit/period',
    '"Day"',
  );
  assertDetail(
    await call(app, 'PATCH', '/endpoints/conf/settings', { rateLimit: { rate: 0 } }),
    '/rateLimit/rate',
    '0',
  );
  assertDetail(
    await call(app, 'PATCH', '/endpoints/conf/settings', { rateLimit: { rate: 1.5 } }),
    '/rateLimit/rate',
    '1.5',
  );
  assertDetail(
    await call(app, 'PATCH', '/endpoints/conf/settings', { proxy: { targetUrl: 'ftp://x.example' } }),
    '/proxy/targetUrl',
  );
  assertDetail(
    await call(app, 'PATCH', '/endpoints/conf/settings', { proxy: { ignoreSSLErrors: 'yes' } }),
    '/proxy/ignoreSSLErrors',
    '"yes"',
  );
  assertDetail(await call(app, 'PATCH', '/endpoints/conf/settings', { localTunnel: 1 }), '/localTunnel', '1');
  assertDetail(
    await call(app, 'PATCH', '/endpoints/conf/settings', { cors: { origins: 'x' } }),
    '/cors/origins',
  );
  assertDetail(
    await call(app, 'PATCH', '/endpoints/conf/settings', { security: { headerKey: 'bad header' } }),
    '/security/headerKey',
  );
  assertDetail(
    await call(app, 'PATCH', '/endpoints/conf/settings', { defaultResponse: { status: 99 } }),
    '/defaultResponse/status',
    '99',
  );
  assertDetail(
    await call(app, 'PATCH', '/endpoints/conf/settings', { rules: { enabled: 'no' } }),
    '/rules/enabled',
  );
  assertDetail(await call(app, 'PATCH', '/endpoints/conf/settings', { locale: 'English!' }), '/locale');
  assertDetail(await call(app, 'PATCH', '/endpoints/conf/settings', { colour: 'red' }), '/colour', '"red"');
  assertDetail(await call(app, 'PATCH', '/endpoints/conf/settings', { plan: 'gold' }), '/plan', '"gold"');
  await createEndpoint(app, 'secure');
  assertDetail(
    await call(app, 'PATCH', '/endpoints/secure/settings', { security: { enabled: true } }),
    '/security/headerKey',
  );
  // nothing of the refused patches was stored
  const r = await call(app, 'GET', '/endpoints/secure/settings');
  assert.equal(r.body.security.enabled, false);
});

void test('defaultResponse changes what an unmatched request gets; null restores the built-in answer', async () => {
  await createEndpoint(app, 'deflt');
  let r = await call(app, 'PATCH', '/endpoints/deflt/settings', {
    defaultResponse: { status: 418, headers: { 'X-Teapot': 'yes' }, body: 'short and stout' },
  });
  assert.equal(r.status, 200, r.text);
  let res = await app.inject({ url: '/e/deflt/anything' });
  assert.equal(res.statusCode, 418);
  assert.equal(res.headers['x-teapot'], 'yes');
  assert.equal(res.body, 'short and stout');
  r = await call(app, 'PATCH', '/endpoints/deflt/settings', {
    defaultResponse: { headers: [{ key: 'content-type', value: 'application/json' }], body: '{}' },
  });
  assert.deepEqual(r.body.defaultResponse.status, 418, 'merged field by field');
  res = await app.inject({ url: '/e/deflt/anything' });
  assert.match(String(res.headers['content-type']), /^application\/json/);
  r = await call(app, 'PATCH', '/endpoints/deflt/settings', { defaultResponse: null });
  assert.deepEqual(r.body.defaultResponse, { status: 200, headers: {} });
  res = await app.inject({ url: '/e/deflt/anything' });
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /nothing configured/);
  // What GET shows for the built-in answer, sent back (an export re-imported), keeps it built in.
  r = await call(app, 'PATCH', '/endpoints/deflt/settings', { defaultResponse: r.body.defaultResponse });
  assert.equal(r.status, 200, r.text);
  res = await app.inject({ url: '/e/deflt/anything' });
  assert.match(res.body, /nothing configured/);
  // An empty 200 of its own is asked for with an empty body.
  r = await call(app, 'PATCH', '/endpoints/deflt/settings', { defaultResponse: { body: '' } });
  res = await app.inject({ url: '/e/deflt/anything' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, '');
});

void test('PATCH publishes settings.updated with the new settings', async () => {
  const seen: MockEvent[] = [];
  const stop = app.ctx.events.subscribe('conf', (e) => seen.push(e));
  await call(app, 'PATCH', '/endpoints/conf/settings', { localTunnel: true });
  stop();
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.name, 'settings.updated');
  assert.equal((seen[0]!.data as { localTunnel: boolean }).localTunnel, true);
});

void test('a scoped key manages its endpoint settings but cannot change its plan or another endpoint', async () => {
  await createEndpoint(app, 'scoped-set');
  const key = await scopedKey(app, 'scoped-set');
  const ok = await call(app, 'PATCH', '/endpoints/scoped-set/settings', { locale: 'fr' }, key);
  assert.equal(ok.status, 200);
  assert.equal(ok.body.locale, 'fr');
  assertError(
    await call(app, 'PATCH', '/endpoints/scoped-set/settings', { plan: 'free' }, key),
    403,
    'forbidden',
  );
  // naming the current plan is not a change
  assert.equal(
    (await call(app, 'PATCH', '/endpoints/scoped-set/settings', { plan: 'unlimited' }, key)).status,
    200,
  );
  assertError(await call(app, 'PATCH', '/endpoints/conf/settings', { locale: 'fr' }, key), 403, 'forbidden');
  assertError(await call(app, 'GET', '/endpoints/conf/settings', undefined, key), 403, 'forbidden');
  const admin = await call(app, 'PATCH', '/endpoints/scoped-set/settings', { plan: 'free' });
  assert.equal(admin.body.plan, 'free');
  assert.equal((await call(app, 'GET', '/endpoints/scoped-set')).body.plan, 'free');
});

void test('openapi.validation: PATCH sets each mode, GET shows it, other values are 400', async () => {
  await createEndpoint(app, 'contract-mode');
  for (const mode of ['off', 'enforce', 'report']) {
    const r = await call(app, 'PATCH', '/endpoints/contract-mode/settings', {
      openapi: { validation: mode },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.openapi, { validation: mode });
    assert.deepEqual((await call(app, 'GET', '/endpoints/contract-mode/settings')).body.openapi, {
      validation: mode,
    });
  }
  assertDetail(
    await call(app, 'PATCH', '/endpoints/contract-mode/settings', { openapi: { validation: 'strict' } }),
    '/openapi/validation',
    '"strict"',
  );
  assertDetail(
    await call(app, 'PATCH', '/endpoints/contract-mode/settings', { openapi: { other: true } }),
    '/openapi/other',
  );
});
