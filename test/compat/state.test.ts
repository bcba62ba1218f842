/** Conformance: endpoint state (list with pagination, upsert, read one, delete one, delete many). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { conforms, conformsError, send } from './conformance.js';

let app: TestApp;
const S = '/api/v2/endpoints/shop/state';
before(async () => {
  app = await startApp();
  conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'shop' }));
});
after(async () => {
  await app.stop();
});

test('PUT items (any letter case), list and read them in lower case, delete', async () => {
  const up = conforms(
    'PUT /api/v2/endpoints/:ep/state',
    await send(app, 'PUT', S, {
      items: [
        { type: 'Counter', key: 'visits', value: 10 },
        { type: 'string', key: 'user:1', value: { name: 'Ada' } },
        { type: 'LIST', key: 'cart', value: [1, 2] },
      ],
    }),
  );
  assert.deepEqual([up.created, up.updated], [3, 0]);
  const again = conforms(
    'PUT /api/v2/endpoints/:ep/state',
    await send(app, 'PUT', S, { items: [{ type: 'counter', key: 'visits', value: 11 }] }),
  );
  assert.deepEqual([again.created, again.updated], [0, 1]);

  const list = conforms('GET /api/v2/endpoints/:ep/state', await send(app, 'GET', `${S}?limit=2`));
  assert.equal(list.data.length, 2);
  assert.deepEqual(list.pagination, { ...list.pagination, total: 3, limit: 2, offset: 0, hasMore: true });
  const filtered = conforms('GET /api/v2/endpoints/:ep/state', await send(app, 'GET', `${S}?type=counter`));
  assert.deepEqual(
    filtered.data.map((i: { type: string }) => i.type),
    ['counter'],
  );

  const one = conforms(
    'GET /api/v2/endpoints/:ep/state/:type/:key',
    await send(app, 'GET', `${S}/counter/visits`),
  );
  assert.deepEqual([one.type, one.key, one.value], ['counter', 'visits', 11]);
  const gone = conforms(
    'DELETE /api/v2/endpoints/:ep/state/:type/:key',
    await send(app, 'DELETE', `${S}/counter/visits`),
  );
  assert.equal(gone.key, 'visits');
  conformsError(await send(app, 'GET', `${S}/counter/visits`), 404, 'not_found');

  const some = conforms(
    'DELETE /api/v2/endpoints/:ep/state',
    await send(app, 'DELETE', S, { items: [{ type: 'list', key: 'cart' }] }),
  );
  assert.equal(some.count, 1);
  const all = conforms('DELETE /api/v2/endpoints/:ep/state', await send(app, 'DELETE', S, { all: true }));
  assert.equal(all.count, 1);
});

test('a bad type or limit is 400 validation_error', async () => {
  conformsError(await send(app, 'GET', `${S}?limit=101`), 400, 'validation_error');
  conformsError(
    await send(app, 'PUT', S, { items: [{ type: 'set', key: 'k', value: 1 }] }),
    400,
    'validation_error',
  );
});
