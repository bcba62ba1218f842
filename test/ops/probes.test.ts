/**
 * GET /livez and GET /readyz (SPEC §8): the process answers; the instance takes traffic until it
 * drains. Only the management host answers them: on an endpoint's host the paths are the endpoint's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { Readiness } from '../../src/cluster/index.js';
import { opsRoutes } from '../../src/api/index.js';
import { useApp } from '../helpers/endpoint.js';

test('GET /livez: 200 {"status":"ok"} without a key, not cached', async (t) => {
  const app = await useApp(t);
  const r = await app.inject('/livez');
  assert.equal(r.statusCode, 200);
  assert.deepEqual(r.json(), { status: 'ok' });
  assert.equal(r.headers['cache-control'], 'no-store');
});

test('GET /readyz: 200 {"status":"ready"} once the app is built, without a key', async (t) => {
  const app = await useApp(t);
  const r = await app.inject('/readyz');
  assert.equal(r.statusCode, 200);
  assert.deepEqual(r.json(), { status: 'ready' });
  assert.equal(app.ctx.readiness.state, 'ready');
});

test('close(): /readyz is 503 draining at once, and requests are served during DRAIN_DELAY', async (t) => {
  const app = await useApp(t, { drainDelay: 2000 });
  const closed = app.close();
  const ready = await app.inject('/readyz');
  assert.equal(ready.statusCode, 503);
  assert.deepEqual(ready.json(), { status: 'draining' });
  const echo = await app.inject('/e/echo/during-drain');
  assert.equal(echo.statusCode, 200, 'the endpoint plane still answers while draining');
  assert.equal((await app.inject('/livez')).statusCode, 200, 'the process is alive');
  assert.deepEqual(await closed, { historyLost: 0 });
});

test('GET /readyz: 503 {"status":"starting"} before the app is ready', async (t) => {
  const app = await useApp(t);
  const f = Fastify();
  t.after(() => f.close());
  const readiness = new Readiness();
  await f.register(async (s) => opsRoutes(s, { ...app.ctx, readiness }));
  const r = await f.inject('/readyz');
  assert.equal(r.statusCode, 503);
  assert.deepEqual(r.json(), { status: 'starting' });
  readiness.ready();
  assert.equal((await f.inject('/readyz')).statusCode, 200);
});

test('Readiness: starting, ready, draining; a draining instance never turns ready again', () => {
  const r = new Readiness();
  assert.equal(r.state, 'starting');
  r.ready();
  assert.equal(r.state, 'ready');
  r.drain();
  r.ready();
  assert.equal(r.state, 'draining');
});

test("/livez, /readyz and /metrics on an endpoint's host or path are the endpoint's", async (t) => {
  const app = await useApp(t);
  for (const path of ['/livez', '/readyz', '/metrics']) {
    const byHost = await app.inject({ url: path, headers: { host: 'echo.localhost' } });
    assert.equal(byHost.statusCode, 200);
    assert.equal(byHost.json().path, path, `the echo answers ${path} on its host`);
    const byPath = await app.inject(`/e/echo${path}`);
    assert.equal(byPath.json().path, path, `the echo answers /e/echo${path}`);
    const unknown = await app.inject({ url: path, headers: { host: 'nope.localhost' } });
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /The endpoint "nope" does not exist/);
  }
});
