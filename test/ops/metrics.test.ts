/**
 * GET /metrics (SPEC §8): Prometheus text format, the admin key on the service's port, or no key on a
 * listener of its own (METRICS_PORT). Endpoint requests are counted by the behavior their history entry
 * names, once each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { ADMIN_KEY, type TestApp } from '../helpers/app.js';
import { assertError, call, createEndpoint, scopedKey, type Res } from '../helpers/api-helpers.js';
import { useApp } from '../helpers/endpoint.js';

/** GET /metrics on the service's port, with `key` (the admin key by default; null: none). */
async function metrics(app: TestApp, key: string | null = `Bearer ${ADMIN_KEY}`): Promise<Res> {
  const r = await app.inject({ url: '/metrics', headers: key === null ? {} : { authorization: key } });
  const json = r.headers['content-type']?.toString().startsWith('application/json');
  return { status: r.statusCode, body: json ? r.json() : undefined, headers: r.headers, text: r.body };
}

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test('GET /metrics: 401 without a key or with an unknown one, 403 with a key scoped to an endpoint', async (t) => {
  const app = await useApp(t);
  assertError(await metrics(app, null), 401, 'missing_authentication');
  assertError(await metrics(app, 'mb_not_a_key'), 401, 'unauthorized_api_key');
  await createEndpoint(app, 'shop');
  assertError(await metrics(app, await scopedKey(app, 'shop')), 403, 'forbidden');
});

test('GET /metrics: failed keys count toward AUTH_FAILURE_LIMIT like the API', async (t) => {
  const app = await useApp(t, { authFailureLimit: 2 });
  assertError(await metrics(app, 'mb_wrong_1'), 401, 'unauthorized_api_key');
  assertError(await metrics(app, 'mb_wrong_2'), 401, 'unauthorized_api_key');
  assertError(await metrics(app, 'mb_wrong_3'), 429, 'rate_limited');
  assertError(await metrics(app), 429, 'rate_limited');
});

test('GET /metrics with the admin key: the text format with the named metrics', async (t) => {
  const app = await useApp(t);
  const r = await metrics(app);
  assert.equal(r.status, 200, r.text);
  assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  for (const name of [
    'mockingbird_requests_total',
    'mockingbird_config_reloads_total',
    'mockingbird_history_queue_depth',
    'mockingbird_history_dropped_total',
    'mockingbird_dependency_up',
    'mockingbird_tunnel_hops_total',
  ])
    assert.match(r.text, new RegExp(`^# TYPE ${name} `, 'm'), name);
  assert.equal(sample(r.text, 'mockingbird_history_queue_depth'), 0);
  assert.equal(sample(r.text, 'mockingbird_history_dropped_total'), 0);
  // SQLite is no shared dependency; Redis is not configured.
  assert.doesNotMatch(r.text, /^mockingbird_dependency_up\{/m);
});

test('requests are counted by behavior, once each: an echo, a rule, the default answer', async (t) => {
  const app = await useApp(t);
  await createEndpoint(app, 'shop');
  const rule = await call(app, 'POST', '/endpoints/shop/rules', {
    conditions: [{ type: 'path', operator: 'equals', value: '/hit' }],
    action: { type: 'mock', status: 201, body: 'ruled' },
  });
  assert.equal(rule.status, 201, rule.text);
  assert.equal((await app.inject('/e/echo/a')).statusCode, 200);
  assert.equal((await app.inject('/e/echo/b')).statusCode, 200);
  assert.equal((await app.inject('/e/shop/hit')).statusCode, 201);
  assert.equal((await app.inject('/e/shop/miss')).statusCode, 200);
  // Not answered by an endpoint: no count.
  assert.equal((await app.inject('/e/nope/x')).statusCode, 404);
  const text = (await metrics(app)).text;
  assert.equal(sample(text, 'mockingbird_requests_total{behavior="echo"}'), 2);
  assert.equal(sample(text, 'mockingbird_requests_total{behavior="mock-rule"}'), 1);
  assert.equal(sample(text, 'mockingbird_requests_total{behavior="default"}'), 1);
});

test('METRICS_PORT: /metrics without a key on its own listener; other paths 404, other methods 405', async (t) => {
  const app = await useApp(t, { metricsPort: 0 });
  const port = await app.listenMetrics();
  assert.ok(port !== undefined && port > 0);
  assert.equal((await app.inject('/e/echo/x')).statusCode, 200);
  const base = `http://127.0.0.1:${port}`;
  const r = await fetch(`${base}/metrics`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  assert.equal(sample(await r.text(), 'mockingbird_requests_total{behavior="echo"}'), 1);
  const other = await fetch(`${base}/api/v2/endpoints`);
  assert.equal(other.status, 404);
  assert.equal(((await other.json()) as { error: { code: string } }).error.code, 'not_found');
  const post = await fetch(`${base}/metrics`, { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(((await post.json()) as { error: { code: string } }).error.code, 'method_not_allowed');
});

test('no METRICS_PORT: no listener of its own', async (t) => {
  const app = await useApp(t);
  assert.equal(await app.listenMetrics(), undefined);
});

test('METRICS_PORT taken: listenMetrics rejects, naming why', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => taken.close());
  const port = (taken.address() as { port: number }).port;
  const app = await useApp(t, { metricsPort: port });
  await assert.rejects(app.listenMetrics(), /EADDRINUSE/);
});
