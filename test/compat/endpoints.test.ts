/** Conformance: endpoints and authentication, as a script written for the hosted v2 API uses them. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { conforms, conformsError, send } from './conformance.js';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app.stop();
});

test('POST /endpoints creates; GET lists and shows one; DELETE removes', async () => {
  const created = conforms(
    'POST /api/v2/endpoints',
    await send(app, 'POST', '/api/v2/endpoints', { name: 'shop' }),
  );
  assert.equal(created.name, 'shop');
  const list = conforms('GET /api/v2/endpoints', await send(app, 'GET', '/api/v2/endpoints'));
  assert.ok(list.data.some((e: { name: string }) => e.name === 'shop'));
  const one = conforms('GET /api/v2/endpoints/:ep', await send(app, 'GET', '/api/v2/endpoints/shop'));
  assert.equal(one.name, 'shop');
  conforms('DELETE /api/v2/endpoints/:ep', await send(app, 'DELETE', '/api/v2/endpoints/shop'));
  conformsError(await send(app, 'GET', '/api/v2/endpoints/shop'), 404, 'not_found');
});

test('the key is accepted raw and as Bearer; missing and unknown keys are 401 with their codes', async () => {
  conforms(
    'GET /api/v2/endpoints',
    await send(app, 'GET', '/api/v2/endpoints', undefined, { authorization: ADMIN_KEY }),
  );
  conforms(
    'GET /api/v2/endpoints',
    await send(app, 'GET', '/api/v2/endpoints', undefined, { authorization: `Bearer ${ADMIN_KEY}` }),
  );
  conformsError(await send(app, 'GET', '/api/v2/endpoints', undefined, {}), 401, 'missing_authentication');
  conformsError(
    await send(app, 'GET', '/api/v2/endpoints', undefined, { authorization: 'mb_' + 'x'.repeat(40) }),
    401,
    'unauthorized_api_key',
  );
});

test('a bad name is 400 validation_error with details; a taken name is 409 conflict', async () => {
  conformsError(await send(app, 'POST', '/api/v2/endpoints', { name: 'A!' }), 400, 'validation_error');
  conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'taken' }));
  conformsError(await send(app, 'POST', '/api/v2/endpoints', { name: 'taken' }), 409, 'conflict');
});

test('a key scoped to one endpoint gets 403 forbidden elsewhere', async () => {
  conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'mine' }));
  conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'theirs' }));
  const key = conforms(
    'POST /api/v2/keys',
    await send(app, 'POST', '/api/v2/keys', { endpoint: 'mine' }),
  ).key;
  conforms(
    'GET /api/v2/endpoints/:ep',
    await send(app, 'GET', '/api/v2/endpoints/mine', undefined, { authorization: key }),
  );
  conformsError(
    await send(app, 'GET', '/api/v2/endpoints/theirs/rules', undefined, { authorization: key }),
    403,
    'forbidden',
  );
});
