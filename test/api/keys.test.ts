import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertDetail, assertError, call, createEndpoint } from '../helpers/api-helpers.js';

let app: TestApp;
before(async () => {
  app = await startApp();
  await createEndpoint(app, 'shop');
  await createEndpoint(app, 'other');
});
after(async () => {
  await app.stop();
});

void test('POST /keys makes a scoped key (201): mb_ + 43 URL-safe characters, usable at once', async () => {
  const r = await call(app, 'POST', '/keys', { endpoint: 'shop' });
  assert.equal(r.status, 201, r.text);
  assert.match(r.body.key, /^mb_[A-Za-z0-9_-]{43}$/);
  assert.equal(r.body.endpoint, 'shop');
  assert.equal(typeof r.body.id, 'string');
  assert.equal((await call(app, 'GET', '/endpoints/shop', undefined, r.body.key)).status, 200);
  assert.equal((await call(app, 'GET', '/endpoints/shop', undefined, `Bearer ${r.body.key}`)).status, 200);
  assertError(await call(app, 'GET', '/endpoints/other', undefined, r.body.key), 403, 'forbidden');
});

void test('POST /keys without an endpoint (or with null) makes another admin key', async () => {
  for (const payload of [{}, { endpoint: null }, undefined]) {
    const r = await call(app, 'POST', '/keys', payload);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.endpoint, null);
    assert.equal(
      (await call(app, 'POST', '/endpoints', { name: `by-key-${r.body.id.slice(0, 8)}` }, r.body.key)).status,
      201,
    );
  }
});

void test('POST /keys: unknown endpoint 404, bad body 400, scoped key 403', async () => {
  assertError(await call(app, 'POST', '/keys', { endpoint: 'nope-nope' }), 404, 'not_found');
  assertDetail(await call(app, 'POST', '/keys', { endpoint: 5 }), '/endpoint', '5');
  assertDetail(await call(app, 'POST', '/keys', { scope: 'shop' }), '/scope');
  const scoped = (await call(app, 'POST', '/keys', { endpoint: 'shop' })).body.key as string;
  assertError(await call(app, 'POST', '/keys', { endpoint: 'shop' }, scoped), 403, 'forbidden');
  assertError(await call(app, 'POST', '/keys', {}, null), 401, 'missing_authentication');
});

void test('GET /keys lists ids, scopes and dates, never a key or its hash', async () => {
  const made = await call(app, 'POST', '/keys', { endpoint: 'other' });
  const r = await call(app, 'GET', '/keys');
  assert.equal(r.status, 200);
  const row = (r.body.data as Record<string, unknown>[]).find((k) => k['id'] === made.body.id);
  assert.deepEqual(Object.keys(row ?? {}).sort(), ['createdAt', 'endpoint', 'id']);
  assert.equal(row?.['endpoint'], 'other');
  assert.ok(!r.text.includes(made.body.key));
  assert.ok(!r.text.includes('mb_'));
  assertError(await call(app, 'GET', '/keys', undefined, made.body.key), 403, 'forbidden');
});

void test('DELETE /keys/:id revokes (the key then gets 401); unknown id 404', async () => {
  const made = await call(app, 'POST', '/keys', { endpoint: 'shop' });
  assertError(await call(app, 'DELETE', `/keys/${made.body.id}`, undefined, made.body.key), 403, 'forbidden');
  const r = await call(app, 'DELETE', `/keys/${made.body.id}`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { id: made.body.id, deleted: true });
  assertError(
    await call(app, 'GET', '/endpoints/shop', undefined, made.body.key),
    401,
    'unauthorized_api_key',
  );
  assertError(await call(app, 'DELETE', `/keys/${made.body.id}`), 404, 'not_found');
});

void test('the last admin key cannot be revoked (409); once another exists it can', async () => {
  const fresh = await startApp();
  try {
    const keys = (await call(fresh, 'GET', '/keys')).body.data as { id: string; endpoint: string | null }[];
    const admins = keys.filter((k) => k.endpoint === null);
    assert.equal(admins.length, 1);
    assertError(await call(fresh, 'DELETE', `/keys/${admins[0]!.id}`), 409, 'conflict');
    const second = await call(fresh, 'POST', '/keys', {});
    const r = await call(fresh, 'DELETE', `/keys/${admins[0]!.id}`, undefined, `Bearer ${second.body.key}`);
    assert.equal(r.status, 200, r.text);
  } finally {
    await fresh.stop();
  }
});
