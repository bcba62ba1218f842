/**
 * GET /api/v2/health (SPEC §8): admin key only; the database and Redis pinged, the parts' own reports,
 * the history queue, and `degraded` when anything is down or degraded. A dependency that does not
 * answer is reported down within the ping's timeout, never waited for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DependencyStatus, HealthProbe, Readiness } from '../../src/cluster/index.js';
import { assertError, call, createEndpoint, scopedKey } from '../helpers/api-helpers.js';
import { useApp } from '../helpers/endpoint.js';

test('GET /health: 401 without a key or with an unknown one, 403 with a key scoped to an endpoint', async (t) => {
  const app = await useApp(t);
  assertError(await call(app, 'GET', '/health', undefined, null), 401, 'missing_authentication');
  assertError(await call(app, 'GET', '/health', undefined, 'mb_not_a_key'), 401, 'unauthorized_api_key');
  await createEndpoint(app, 'shop');
  assertError(await call(app, 'GET', '/health', undefined, await scopedKey(app, 'shop')), 403, 'forbidden');
});

test('GET /health with the admin key: database up, Redis off, ready, the history queue, not degraded', async (t) => {
  const app = await useApp(t);
  assert.equal((await app.inject('/e/echo/x')).statusCode, 200);
  await app.ctx.history.flush();
  const r = await call(app, 'GET', '/health');
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers['cache-control'], 'no-store');
  const b = r.body;
  assert.equal(b.degraded, false);
  assert.equal(b.instance.state, 'ready');
  assert.equal(typeof b.instance.uptimeSeconds, 'number');
  assert.equal(b.database.dialect, 'sqlite');
  assert.equal(b.database.state, 'up');
  assert.equal(typeof b.database.latencyMs, 'number');
  assert.deepEqual(b.redis, { state: 'off' });
  assert.deepEqual(b.reports, {});
  assert.deepEqual(b.history, { queued: 0, queuedBytes: 0, written: 1, dropped: 0 });
});

test('GET /health: degraded when a part reports itself degraded or down, with its detail and since', async (t) => {
  const app = await useApp(t);
  app.ctx.status.report('rate_limits', 'degraded', 'counting in memory: Redis unreachable');
  const b = (await call(app, 'GET', '/health')).body;
  assert.equal(b.degraded, true);
  assert.equal(b.reports.rate_limits.state, 'degraded');
  assert.equal(b.reports.rate_limits.detail, 'counting in memory: Redis unreachable');
  assert.match(b.reports.rate_limits.since, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  app.ctx.status.report('rate_limits', 'up');
  assert.equal((await call(app, 'GET', '/health')).body.degraded, false);
});

test('GET /health: a database that fails its ping is down, with why, and the instance degraded', async (t) => {
  const app = await useApp(t);
  const store = app.ctx.store as { getMeta: (k: string) => Promise<string | undefined> };
  const original = store.getMeta.bind(store);
  const denied = (): Promise<never> => Promise.reject(new Error('connection refused'));
  store.getMeta = (key) => (key === 'health_ping' ? denied() : original(key));
  t.after(() => (store.getMeta = original));
  const b = (await call(app, 'GET', '/health')).body;
  assert.equal(b.degraded, true);
  assert.deepEqual(b.database, { dialect: 'sqlite', state: 'down', detail: 'connection refused' });
});

test('HealthProbe: a database that never answers is down after the timeout, and Redis down while unlinked', async () => {
  const status = new DependencyStatus();
  status.report('redis', 'down', 'connect ECONNREFUSED');
  const probe = new HealthProbe({
    store: { dialect: 'postgres', getMeta: () => new Promise(() => undefined) },
    redis: { up: false, client: undefined as never },
    status,
    history: { stats: () => ({ queued: 0, queuedBytes: 0, written: 0, dropped: 0 }) },
    readiness: new Readiness(),
    now: Date.now,
  });
  assert.deepEqual(await probe.pingDatabase(20), {
    state: 'down',
    detail: 'the database did not answer within 20 ms',
  });
  assert.deepEqual(await probe.pingRedis(), { state: 'down', detail: 'connect ECONNREFUSED' });
});

test('the API document describes GET /health and its answer', async (t) => {
  const app = await useApp(t);
  const doc = (await call(app, 'GET', '/openapi.json', undefined, null)).body;
  const op = doc.paths['/health'].get;
  assert.deepEqual(op.tags, ['Operations']);
  const schema = op.responses['200'].content['application/json'].schema;
  assert.deepEqual(Object.keys(schema.properties).sort(), [
    'database',
    'degraded',
    'history',
    'instance',
    'redis',
    'reports',
  ]);
});
