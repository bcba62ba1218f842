/**
 * Record and replay (SPEC §7 "Recording"): a proxied exchange becomes a rule through
 * `POST …/requests/:id/rule` and keeps answering once the upstream is gone; `proxy.record: true` does
 * it by itself, once per method and path; what cannot be replayed as it was is refused (409).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { until } from '../helpers/until.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { startApp } from '../helpers/app.js';
import { historyOf, proxyApp, rawValues, send, upstream } from './proxy-helpers.js';

test('a proxied exchange recorded through the API answers after the upstream has stopped', async () => {
  const up = await upstream((_req, res) => {
    res.writeHead(207, [
      ['Content-Type', 'application/json'],
      ['X-Upstream', 'real'],
      ['X-Upstream', 'twice'],
      ['Set-Cookie', 'sid=secret'],
    ]);
    res.end('{"users":[1,2]}');
  });
  const app = await proxyApp(up.url);
  try {
    const live = await send(`${app.endpointUrl}/users?page=1`);
    assert.equal(live.status, 207);
    const [entry] = await historyOf(app);
    assert.equal(entry?.behavior, 'proxy');
    const r = await call(app, 'POST', `/endpoints/shop/requests/${entry.id}/rule`);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.method, 'GET');
    assert.deepEqual(r.body.conditions, [{ type: 'path', operator: 'equals', value: '/users' }]);
    assert.equal(r.body.action.type, 'mock');
    assert.equal(r.body.action.status, 207);
    assert.equal(r.body.action.body, '{"users":[1,2]}');
    const keys = (r.body.action.headers as { key: string }[]).map((h) => h.key);
    assert.ok(keys.includes('content-type'));
    for (const gone of [
      'content-length',
      'connection',
      'keep-alive',
      'date',
      'set-cookie',
      'transfer-encoding',
    ])
      assert.ok(!keys.includes(gone), gone);
    const rules = await call(app, 'GET', '/endpoints/shop/rules');
    assert.equal(rules.body.data.at(-1).id, r.body.id);

    await up.close();
    const replay = await send(`${app.endpointUrl}/users?page=2`);
    assert.equal(replay.status, 207);
    assert.equal(replay.text, '{"users":[1,2]}');
    assert.match(String(replay.headers['content-type']), /^application\/json/);
    assert.deepEqual(rawValues(replay.rawHeaders, 'x-upstream'), ['real', 'twice']);
    const [last] = await historyOf(app);
    assert.equal(last?.behavior, 'mock-rule');
    assert.equal(last?.ruleId, r.body.id);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('any recorded exchange becomes a rule; unknown ids are 404; the echo endpoint is refused', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'plain');
    const res = await app.inject({ method: 'DELETE', url: '/e/plain/things/1' });
    assert.equal(res.statusCode, 200);
    const [entry] = await historyOf(app, 'plain');
    assert.equal(entry?.behavior, 'default');
    const r = await call(app, 'POST', `/endpoints/plain/requests/${entry.id}/rule`);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.method, 'DELETE');
    assert.match(r.body.action.body, /nothing configured/);
    assert.equal((await call(app, 'POST', '/endpoints/plain/requests/nope/rule')).status, 404);
    assert.equal((await call(app, 'POST', '/endpoints/missing-ep/requests/x/rule')).status, 404);
    await app.inject({ method: 'GET', url: '/e/echo/hi' });
    const [echoed] = await historyOf(app, 'echo');
    assert.equal((await call(app, 'POST', `/endpoints/echo/requests/${echoed!.id}/rule`)).status, 403);
  } finally {
    await app.stop();
  }
});

test('what cannot be replayed as it was is refused with 409: a cut body, a compressed body', async () => {
  const up = await upstream((req, res) => {
    if (req.url === '/gz') {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
      res.end(gzipSync('zipped'));
    } else res.end('x'.repeat(2048));
  });
  const app = await proxyApp(up.url, { captureLimit: 1024 });
  try {
    await send(`${app.endpointUrl}/gz`);
    await send(`${app.endpointUrl}/big`);
    const [big, gz] = await historyOf(app);
    const cut = await call(app, 'POST', `/endpoints/shop/requests/${big!.id}/rule`);
    assert.equal(cut.status, 409);
    assert.match(cut.body.error.message, /CAPTURE_LIMIT/);
    const zipped = await call(app, 'POST', `/endpoints/shop/requests/${gz!.id}/rule`);
    assert.equal(zipped.status, 409);
    assert.match(zipped.body.error.message, /gzip/);
    assert.equal((await call(app, 'GET', '/endpoints/shop/rules')).body.data.length, 0);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('proxy.record: true records each method and path once, decoding a compressed body', async () => {
  const up = await upstream((req, res) => {
    if (req.url === '/gz') {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
      res.end(gzipSync('unzipped text'));
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${req.method} ${req.url}`);
    }
  });
  const app = await proxyApp(up.url, {}, { record: true });
  const rules = async () =>
    (await call(app, 'GET', '/endpoints/shop/rules')).body.data as Record<string, unknown>[];
  try {
    // Concurrent requests for one method and path: one rule.
    const first = await Promise.all([1, 2, 3].map(() => send(`${app.endpointUrl}/a?x=1`)));
    assert.ok(first.every((r) => r.text === 'GET /a?x=1'));
    await until(async () => (await rules()).length === 1, 3000, 'the exchange was not recorded');
    await send(`${app.endpointUrl}/a`, { method: 'POST', body: 'new' });
    await until(async () => (await rules()).length === 2, 3000, 'the POST was not recorded');
    const before = up.seen.length;
    const replay = await send(`${app.endpointUrl}/a?x=2`);
    assert.equal(replay.text, 'GET /a?x=1');
    assert.equal(up.seen.length, before, 'answered by the recorded rule, not the upstream');
    assert.equal((await historyOf(app))[0]?.behavior, 'mock-rule');

    const gz = await send(`${app.endpointUrl}/gz`);
    assert.equal(gz.headers['content-encoding'], 'gzip');
    await until(async () => (await rules()).length === 3, 3000, 'the compressed answer was not recorded');
    const zipRule = (await rules())[2] as { action: { body: string; headers: { key: string }[] } };
    assert.equal(zipRule.action.body, 'unzipped text');
    assert.ok(!zipRule.action.headers.some((h) => h.key === 'content-encoding'));
    const replayed = await send(`${app.endpointUrl}/gz`);
    assert.equal(replayed.text, 'unzipped text');

    const all = await rules();
    assert.deepEqual(
      all.map((r) => `${String(r['method'])} ${JSON.stringify(r['conditions'])}`),
      [
        'GET [{"type":"path","operator":"equals","value":"/a"}]',
        'POST [{"type":"path","operator":"equals","value":"/a"}]',
        'GET [{"type":"path","operator":"equals","value":"/gz"}]',
      ],
    );
  } finally {
    await app.stop();
    await up.close();
  }
});

test('proxy.record leaves an exchange alone when a rule for its method and path exists, or the body is cut', async () => {
  const up = await upstream((_req, res) => res.end('y'.repeat(4096)));
  const app = await proxyApp(up.url, { captureLimit: 1024 }, { record: true });
  try {
    await send(`${app.endpointUrl}/big`);
    // A disabled rule for GET /dup: it does not answer, and it still counts as recorded.
    await call(app, 'POST', '/endpoints/shop/rules', {
      method: 'GET',
      enabled: false,
      conditions: [{ type: 'path', operator: 'equals', value: '/dup' }],
      action: { type: 'mock', body: 'mine' },
    });
    await send(`${app.endpointUrl}/dup`);
    await new Promise((r) => setTimeout(r, 200));
    const rules = (await call(app, 'GET', '/endpoints/shop/rules')).body.data as unknown[];
    assert.equal(rules.length, 1);
  } finally {
    await app.stop();
    await up.close();
  }
});
