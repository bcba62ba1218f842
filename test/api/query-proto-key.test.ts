/**
 * Stops: `?__proto__=1` accepted on an API route whose query has defaults, where any other unknown
 * query parameter is 400 (issue 30, item 5): the copy the defaults are applied to lost the key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../helpers/endpoint.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';

test('?__proto__ and ?constructor are unknown query parameters like ?bogus, on every route', async (t) => {
  const app = await useApp(t);
  await createEndpoint(app, 'shop');
  for (const path of [
    '/endpoints/shop/state',
    '/endpoints/shop/requests',
    '/endpoints',
    '/endpoints/shop/rules',
  ]) {
    for (const key of ['bogus', '__proto__', 'constructor']) {
      const r = await call(app, 'GET', `${path}?${key}=1`);
      assert.equal(r.status, 400, `${path}?${key}=1: ${r.text}`);
      assert.equal(r.body.error.code, 'validation_error');
      assert.equal(r.body.error.details[0].path, `/${key}`);
    }
  }
  // Known parameters with defaults still work, and the defaults are applied.
  const ok = await call(app, 'GET', '/endpoints/shop/state?limit=5');
  assert.equal(ok.status, 200);
  assert.equal(ok.body.pagination.limit, 5);
  assert.equal((await call(app, 'GET', '/endpoints/shop/state')).body.pagination.limit, 20);
});
