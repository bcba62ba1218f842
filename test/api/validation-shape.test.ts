/**
 * One validator for the whole API: a history query, a settings body, an events query and a keys body
 * are explained alike (JSON-pointer path, TypeBox's wording, `received` as JSON text).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';

test('unknown query parameters get the same detail on every route, the value as JSON text', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'shape');
    for (const path of [
      '/endpoints/shape/requests?foo=1',
      '/endpoints/shape/settings?foo=1',
      '/endpoints/shape/rules?foo=1',
      '/keys?foo=1',
    ]) {
      const r = await call(app, 'GET', path);
      assert.equal(r.status, 400, path);
      assert.deepEqual(
        r.body.error.details,
        [{ path: '/foo', message: 'Unexpected property', received: '"1"' }],
        path,
      );
    }
  } finally {
    await app.stop();
  }
});

test('a malformed query value and a malformed body value read the same way', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'shape');
    const q = await call(app, 'GET', '/endpoints/shape/requests?status=abc');
    assert.equal(q.status, 400);
    assert.deepEqual(q.body.error.details, [
      { path: '/status', message: 'Expected integer', received: '"abc"' },
    ]);
    const b = await call(app, 'PATCH', '/endpoints/shape/settings', { rateLimit: { rate: 'abc' } });
    assert.equal(b.status, 400);
    assert.deepEqual(b.body.error.details, [
      { path: '/rateLimit/rate', message: 'Expected integer', received: '"abc"' },
    ]);
    assert.equal(q.body.error.message, '/status: Expected integer');
  } finally {
    await app.stop();
  }
});

test('query numbers and booleans are read strictly: 2.5 is not an integer, 1 is not a boolean', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'shape');
    assert.equal((await call(app, 'GET', '/endpoints/shape/requests?limit=5&ruleMatched=true')).status, 200);
    const frac = await call(app, 'GET', '/endpoints/shape/requests?limit=2.5');
    assert.equal(frac.body.error.details[0].received, '2.5');
    const one = await call(app, 'GET', '/endpoints/shape/requests?ruleMatched=1');
    assert.equal(one.body.error.details[0].received, '"1"');
    const mode = await call(app, 'GET', '/endpoints/shape/requests?mode=full');
    assert.equal(mode.body.error.details[0].message, 'Expected one of: summary, verbose');
  } finally {
    await app.stop();
  }
});
