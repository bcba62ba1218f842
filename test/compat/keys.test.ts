/** Conformance: API keys (create scoped and admin keys, list without secrets, revoke). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { conforms, conformsError, send } from './conformance.js';

let app: TestApp;
before(async () => {
  app = await startApp();
  conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'shop' }));
});
after(async () => {
  await app.stop();
});

test('create a scoped key and an admin key; list them without keys; revoke one', async () => {
  const scoped = conforms('POST /api/v2/keys', await send(app, 'POST', '/api/v2/keys', { endpoint: 'shop' }));
  assert.equal(scoped.endpoint, 'shop');
  const admin = conforms('POST /api/v2/keys', await send(app, 'POST', '/api/v2/keys', {}));
  assert.notEqual(admin.key, scoped.key);
  const list = conforms('GET /api/v2/keys', await send(app, 'GET', '/api/v2/keys'));
  const ids = list.data.map((k: { id: string }) => k.id);
  assert.ok(ids.includes(scoped.id) && ids.includes(admin.id));
  assert.ok(!JSON.stringify(list).includes(scoped.key), 'the list never shows a key');
  const gone = conforms('DELETE /api/v2/keys/:id', await send(app, 'DELETE', `/api/v2/keys/${scoped.id}`));
  assert.equal(gone.id, scoped.id);
  conformsError(
    await send(app, 'GET', '/api/v2/endpoints/shop', undefined, { authorization: scoped.key }),
    401,
    'unauthorized_api_key',
  );
  conformsError(await send(app, 'DELETE', `/api/v2/keys/${scoped.id}`), 404, 'not_found');
});

test('a scoped key may not make keys (403)', async () => {
  const scoped = conforms('POST /api/v2/keys', await send(app, 'POST', '/api/v2/keys', { endpoint: 'shop' }));
  conformsError(
    await send(app, 'POST', '/api/v2/keys', { endpoint: 'shop' }, { authorization: scoped.key }),
    403,
    'forbidden',
  );
});
