/**
 * Stops: stored answer headers that Node cannot send, or that contradict how it frames the body
 * (issue 30, item 5). A header value past Latin-1 made every answer of the endpoint `500 OK` with
 * Fastify's body; a stored `transfer-encoding: chunked` put both framing headers on the answer. Values
 * are refused when saved (400); framing headers, and values stored before the check, are left out at
 * answer time (noted in the history), never a 500.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { historyOf, send } from '../proxy/proxy-helpers.js';

async function app(t: { after(fn: () => Promise<void>): void }): Promise<TestApp> {
  const a = await startApp({}, { listen: true });
  t.after(() => a.stop());
  await createEndpoint(a, 'shop');
  return a;
}

const mock = (path: string, headers: unknown[], extra = {}) => ({
  conditions: [{ type: 'path', operator: 'equals', value: path }],
  action: { type: 'mock', status: 200, headers, body: 'hello', ...extra },
});

test('a header value past Latin-1 is refused when saved: rules, callouts and the default response', async (t) => {
  const a = await app(t);
  const r = await call(a, 'POST', '/endpoints/shop/rules', mock('/u', [{ key: 'x-u', value: 'café ☕' }]));
  assert.equal(r.status, 400);
  assert.equal(r.body.error.details[0].path, '/action/headers/0/value');
  // Latin-1 itself is fine: é is U+00E9.
  assert.equal(
    (await call(a, 'POST', '/endpoints/shop/rules', mock('/l', [{ key: 'x-l', value: 'café\t1' }]))).status,
    201,
  );
  // Other control characters Node refuses too.
  assert.equal(
    (await call(a, 'POST', '/endpoints/shop/rules', mock('/c', [{ key: 'x-c', value: 'a\u0001b' }]))).status,
    400,
  );
  const callout = {
    conditions: [{ type: 'path', operator: 'equals', value: '/co' }],
    action: {
      type: 'callout',
      behavior: 'async',
      callout: { url: 'http://127.0.0.1:9/', transform: 'custom', headers: [{ key: 'x-u', value: '☕' }] },
    },
  };
  const c = await call(a, 'POST', '/endpoints/shop/rules', callout);
  assert.equal(c.status, 400);
  assert.equal(c.body.error.details[0].path, '/action/callout/headers/0/value');
  const d = await call(a, 'PATCH', '/endpoints/shop/settings', {
    defaultResponse: { status: 200, headers: { 'x-u': '☕' }, body: 'x' },
  });
  assert.equal(d.status, 400);
  const l = await send(`${a.url}/e/shop/l`);
  assert.equal(l.status, 200);
  // Sent as Node sends it (its bytes as UTF-8; a Latin-1 reader sees them one by one).
  assert.equal(l.headers['x-l'], Buffer.from('café\t1', 'utf8').toString('latin1'));
});

test('values stored before the check and rendered ones past Latin-1 are left out and noted, never a 500', async (t) => {
  const a = await app(t);
  // Written to the store directly, as an earlier version saved them.
  await a.ctx.store.replaceRules('shop', [
    {
      id: 'old',
      data: {
        enabled: true,
        method: '*',
        description: '',
        conditions: [{ type: 'path', operator: 'equals', value: '/old' }],
        action: {
          type: 'mock',
          status: 200,
          headers: [
            { key: 'x-u', value: 'café ☕' },
            { key: 'x-ok', value: 'fine' },
          ],
          body: 'hello',
        },
      },
    },
  ]);
  await a.ctx.store.updateEndpointSettings('shop', {
    defaultResponse: { status: 203, headers: { 'x-u': '☕', 'x-ok': 'fine' }, body: 'default' },
  });
  a.ctx.endpoints.invalidate('shop');
  for (let i = 0; i < 2; i++) {
    const r = await send(`${a.url}/e/shop/old`);
    assert.equal(r.status, 200);
    assert.equal(r.text, 'hello');
    assert.equal(r.headers['x-u'], undefined);
    assert.equal(r.headers['x-ok'], 'fine');
  }
  const [entry] = await historyOf(a);
  assert.ok(
    entry!.problems?.some((p) => /Header "x-u" was left out: .*Latin-1/.test(p)),
    JSON.stringify(entry!.problems),
  );
  const d = await send(`${a.url}/e/shop/elsewhere`);
  assert.equal(d.status, 203);
  assert.equal(d.text, 'default');
  assert.equal(d.headers['x-u'], undefined);
  assert.equal(d.headers['x-ok'], 'fine');

  // A templated value renders a request's text: left out when it is past Latin-1.
  const templated = mock('/t', [{ key: 'x-t', value: "{{queryParam 'v'}}", templated: true }]);
  assert.equal((await call(a, 'POST', '/endpoints/shop/rules', templated)).status, 201);
  const u = await send(`${a.url}/e/shop/t?v=%E2%98%95`);
  assert.equal(u.status, 200);
  assert.equal(u.headers['x-t'], undefined);
  const [t2] = await historyOf(a);
  assert.ok(t2!.problems?.some((p) => /"x-t" was left out/.test(p)));
  assert.equal((await send(`${a.url}/e/shop/t?v=ok`)).headers['x-t'], 'ok');
});

test('stored transfer-encoding and content-length are left out: one framing, set for the body sent', async (t) => {
  const a = await app(t);
  const headers = [
    { key: 'Transfer-Encoding', value: 'chunked' },
    { key: 'content-length', value: '999' },
    { key: 'x-kept', value: '1' },
  ];
  assert.equal((await call(a, 'POST', '/endpoints/shop/rules', mock('/f', headers))).status, 201);
  const r = await send(`${a.url}/e/shop/f`);
  assert.equal(r.status, 200);
  assert.equal(r.text, 'hello');
  assert.equal(r.headers['transfer-encoding'], undefined);
  assert.equal(r.headers['content-length'], '5');
  assert.equal(r.headers['x-kept'], '1');
  const [entry] = await historyOf(a);
  assert.ok(entry!.problems?.some((p) => /"transfer-encoding" was left out/.test(p)));
  assert.ok(entry!.problems?.some((p) => /"content-length" was left out/.test(p)));
  const patch = {
    defaultResponse: {
      status: 200,
      headers: { 'transfer-encoding': 'chunked', 'x-kept': '2' },
      body: 'dflt',
    },
  };
  assert.equal((await call(a, 'PATCH', '/endpoints/shop/settings', patch)).status, 200);
  const d = await send(`${a.url}/e/shop/other`);
  assert.equal(d.text, 'dflt');
  assert.equal(d.headers['transfer-encoding'], undefined);
  assert.equal(d.headers['content-length'], '4');
  assert.equal(d.headers['x-kept'], '2');
});
