import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import {
  assertDetail,
  assertError,
  call,
  createEndpoint,
  createRule,
  mockRule,
  scopedKey,
} from '../helpers/api-helpers.js';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app.stop();
});

void test('POST /endpoints creates an endpoint (201) that answers on its host and its path form', async () => {
  const r = await call(app, 'POST', '/endpoints', { name: 'shop' });
  assert.equal(r.status, 201);
  assert.equal(r.body.name, 'shop');
  assert.equal(r.body.plan, 'unlimited');
  assert.equal(r.body.builtIn, false);
  assert.equal(r.body.host, 'shop.localhost');
  assert.equal(r.body.path, '/e/shop/');
  assert.match(r.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const byPath = await app.inject({ url: '/e/shop/hello' });
  assert.equal(byPath.statusCode, 200);
  assert.match(byPath.body, /nothing configured for GET \/hello/);
  const byHost = await app.inject({ url: '/hello', headers: { host: 'shop.localhost:8080' } });
  assert.equal(byHost.statusCode, 200);
});

void test('POST /endpoints refuses a duplicate name with 409 conflict', async () => {
  await createEndpoint(app, 'dup-one');
  assertError(await call(app, 'POST', '/endpoints', { name: 'dup-one' }), 409, 'conflict');
});

void test('POST /endpoints validates the name (SPEC §1) with a detail at /name', async () => {
  for (const name of ['ab', 'Shop', '1shop', 'shop-', 'a'.repeat(41), 'sh_op']) {
    assertDetail(await call(app, 'POST', '/endpoints', { name }), '/name', JSON.stringify(name));
  }
  for (const name of ['echo', 'api', 'tools', 'www', 'app']) {
    const r = await call(app, 'POST', '/endpoints', { name });
    assertDetail(r, '/name');
    assert.match(r.body.error.details[0].message, /reserved/);
  }
  assertDetail(await call(app, 'POST', '/endpoints', {}), '/name');
  assertDetail(await call(app, 'POST', '/endpoints'), '/name');
  assertDetail(await call(app, 'POST', '/endpoints', { name: 42 }), '/name', '42');
  assertDetail(await call(app, 'POST', '/endpoints', { name: 'okname', extra: 1 }), '/extra');
  // limit − 1, limit, limit + 1 of the 3..40 length rule
  assert.equal((await call(app, 'POST', '/endpoints', { name: 'a'.repeat(39) })).status, 201);
  assert.equal((await call(app, 'POST', '/endpoints', { name: 'b'.repeat(40) })).status, 201);
  assertDetail(await call(app, 'POST', '/endpoints', { name: 'c'.repeat(41) }), '/name');
  assert.equal((await call(app, 'POST', '/endpoints', { name: 'abc' })).status, 201);
});

void test('the API needs a key: 401 missing_authentication and unauthorized_api_key', async () => {
  assertError(await call(app, 'GET', '/endpoints', undefined, null), 401, 'missing_authentication');
  assertError(await call(app, 'GET', '/endpoints', undefined, 'mb_nope'), 401, 'unauthorized_api_key');
  assertError(await call(app, 'POST', '/endpoints', { name: 'x-y-z' }, null), 401, 'missing_authentication');
});

void test('GET /endpoints lists every endpoint for an admin, only its own for a scoped key', async () => {
  await createEndpoint(app, 'list-a');
  await createEndpoint(app, 'list-b');
  const all = await call(app, 'GET', '/endpoints');
  assert.equal(all.status, 200);
  const names = (all.body.data as { name: string }[]).map((e) => e.name);
  assert.ok(names.includes('list-a') && names.includes('list-b') && names.includes('echo'));
  const echo = (all.body.data as { name: string; builtIn: boolean }[]).find((e) => e.name === 'echo');
  assert.equal(echo?.builtIn, true);
  const key = await scopedKey(app, 'list-a');
  const mine = await call(app, 'GET', '/endpoints', undefined, key);
  assert.deepEqual(
    (mine.body.data as { name: string }[]).map((e) => e.name),
    ['list-a'],
  );
  assertDetail(await call(app, 'GET', '/endpoints?limit=5'), '/limit', '"5"');
});

void test('GET /endpoints/:ep: 200 with settings, 404 unknown, 403 for a key scoped elsewhere', async () => {
  await createEndpoint(app, 'get-a');
  await createEndpoint(app, 'get-b');
  const r = await call(app, 'GET', '/endpoints/get-a');
  assert.equal(r.status, 200);
  assert.equal(r.body.name, 'get-a');
  assert.equal(r.body.settings.plan, 'unlimited');
  assert.equal(r.body.settings.rules.enabled, true);
  assertError(await call(app, 'GET', '/endpoints/nope-nope'), 404, 'not_found');
  const key = await scopedKey(app, 'get-a');
  assert.equal((await call(app, 'GET', '/endpoints/get-a', undefined, key)).status, 200);
  assertError(await call(app, 'GET', '/endpoints/get-b', undefined, key), 403, 'forbidden');
  // a scoped key learns nothing of other endpoints: 403, not 404
  assertError(await call(app, 'GET', '/endpoints/nope-nope', undefined, key), 403, 'forbidden');
});

void test('creating and deleting endpoints is for admin keys (403 for a scoped key)', async () => {
  await createEndpoint(app, 'admin-only');
  const key = await scopedKey(app, 'admin-only');
  assertError(await call(app, 'POST', '/endpoints', { name: 'sneaky' }, key), 403, 'forbidden');
  assertError(await call(app, 'DELETE', '/endpoints/admin-only', undefined, key), 403, 'forbidden');
});

void test('DELETE /endpoints/:ep removes the endpoint with its rules, history and keys', async () => {
  await createEndpoint(app, 'doomed');
  await createRule(app, 'doomed', mockRule('/x'));
  const key = await scopedKey(app, 'doomed');
  await app.inject({ url: '/e/doomed/x' });
  await app.ctx.history.flush();
  assert.equal((await app.ctx.store.listHistory('doomed', {}, 10)).data.length, 1);

  const r = await call(app, 'DELETE', '/endpoints/doomed');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { name: 'doomed', deleted: true });
  assert.equal(await app.ctx.store.countRules('doomed'), 0);
  assert.equal((await app.ctx.store.listHistory('doomed', {}, 10)).data.length, 0);
  assertError(await call(app, 'GET', '/endpoints', undefined, key), 401, 'unauthorized_api_key');
  assert.equal((await app.inject({ url: '/e/doomed/x' })).statusCode, 404);
  assertError(await call(app, 'DELETE', '/endpoints/doomed'), 404, 'not_found');
});

void test('the built-in echo endpoint cannot be deleted or changed (403), but can be read', async () => {
  const del = await call(app, 'DELETE', '/endpoints/echo');
  assertError(del, 403, 'forbidden');
  assert.match(del.body.error.message, /built-in/);
  assert.equal((await call(app, 'GET', '/endpoints/echo')).body.plan, 'unlimited');
  assertError(await call(app, 'PATCH', '/endpoints/echo/settings', { locale: 'de' }), 403, 'forbidden');
  assertError(await call(app, 'POST', '/endpoints/echo/rules', mockRule('/x')), 403, 'forbidden');
  assert.deepEqual((await call(app, 'GET', '/endpoints/echo/rules')).body, { data: [] });
});
