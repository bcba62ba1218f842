/**
 * Stops: inputs answered with a crash, a bare close or a foreign error shape (issue 11, item 10). A `defaultResponse`
 * header with CR/LF/NUL or an invalid name was stored, after which every request to the endpoint got a
 * 500 in Fastify's shape; now such values are refused when saved (400), in settings and in rules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp } from '../helpers/app.js';
import { assertDetail, call, createEndpoint } from '../helpers/api-helpers.js';
import { rawRequest } from '../helpers/raw.js';

test('defaultResponse headers with CR, LF or NUL, or an invalid name, are refused when saved', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'hdrs');
    const patch = (headers: unknown) =>
      call(app, 'PATCH', '/endpoints/hdrs/settings', { defaultResponse: { status: 200, headers } });
    assertDetail(await patch({ 'x-a': 'a\r\nSet-Cookie: x=1' }), '/defaultResponse/headers/x-a');
    assertDetail(await patch({ 'x-a': 'a\u0000b' }), '/defaultResponse/headers/x-a');
    assertDetail(await patch({ 'bad name': 'v' }), '/defaultResponse/headers/bad name');
    assertDetail(await patch([{ key: 'x-a', value: 'a\nb' }]), '/defaultResponse/headers/0/value');
    // The endpoint still answers, in our shape.
    assert.equal((await app.inject({ method: 'GET', url: '/e/hdrs/x' })).statusCode, 200);
    const ok = await patch({ 'x-a': 'fine value', 'X-B': '1' });
    assert.equal(ok.status, 200, ok.text);
    const r = await app.inject({ method: 'GET', url: '/e/hdrs/x' });
    assert.equal(r.headers['x-a'], 'fine value');
  } finally {
    await app.stop();
  }
});

test('rule header values with CR, LF or NUL are refused when saved', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'hdrs');
    const r = await call(app, 'POST', '/endpoints/hdrs/rules', {
      conditions: [{ type: 'path', operator: 'equals', value: '/x' }],
      action: { type: 'mock', headers: [{ key: 'x-a', value: 'a\r\nb' }] },
    });
    assertDetail(r, '/action/headers/0/value');
  } finally {
    await app.stop();
  }
});

test('CONNECT is answered 405 in the documented error shape, not a bare close', async () => {
  const app = await startApp({}, { listen: true });
  try {
    const r = await rawRequest(app.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assert.equal(r.status, 405);
    assert.equal(JSON.parse(r.body).error.code, 'method_not_allowed');
    assert.match(r.headers['allow'] ?? '', /GET/);
  } finally {
    await app.stop();
  }
});

test("a path segment over 1,000 characters is 414 uri_too_long in our shape, not Fastify's", async () => {
  const app = await startApp();
  try {
    for (const url of ['/e/' + 'a'.repeat(5000) + '/x', '/api/v2/endpoints/' + 'a'.repeat(5000)]) {
      const r = await app.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 414);
      assert.deepEqual(Object.keys(JSON.parse(r.body) as object), ['error']);
      assert.equal(JSON.parse(r.body).error.code, 'uri_too_long');
    }
    assert.equal((await app.inject({ method: 'GET', url: '/e/' + 'a'.repeat(999) + '/x' })).statusCode, 404);
  } finally {
    await app.stop();
  }
});
