/**
 * Stops: one key stalling every tenant with a catastrophic history regex (issue 11, item 4). On
 * SQLite the `path=/…/` filter runs on the main thread; it now runs in the linear-time engine, and a
 * pattern that engine refuses (backreferences, lookaround) is a 400 before any query runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp } from '../helpers/app.js';
import { call, createEndpoint, scopedKey } from '../helpers/api-helpers.js';

test('a (a+)+$ history filter over long paths answers in well under a second, from a scoped key', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'redos');
    const long = '/' + 'a'.repeat(5000) + 'b';
    for (let i = 0; i < 2; i++) await app.inject({ method: 'GET', url: `/e/redos${long}?${i}` });
    const key = await scopedKey(app, 'redos');
    // Written first: the clock measures the filter, not the history worker's start (a second under load).
    await app.ctx.history.flush();
    const started = Date.now();
    const r = await call(
      app,
      'GET',
      `/endpoints/redos/requests?path=${encodeURIComponent('/(a+)+$/')}`,
      undefined,
      key,
    );
    const ms = Date.now() - started;
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data, []);
    assert.ok(ms < 1000, `took ${ms} ms`);
    const hit = await call(
      app,
      'GET',
      `/endpoints/redos/requests?path=${encodeURIComponent('/a+b/')}`,
      undefined,
      key,
    );
    assert.equal(hit.body.data.length, 2);
  } finally {
    await app.stop();
  }
});

test('patterns the linear-time engine refuses are a 400 at /path, on the list and the delete', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'redos');
    for (const pattern of ['/(a)\\1/', '/(?=a)b/']) {
      for (const method of ['GET', 'DELETE']) {
        const r = await call(app, method, `/endpoints/redos/requests?path=${encodeURIComponent(pattern)}`);
        assert.equal(r.status, 400, `${method} ${pattern}: ${r.text}`);
        assert.equal(r.body.error.details[0].path, '/path');
      }
    }
  } finally {
    await app.stop();
  }
});
