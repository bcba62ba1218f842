/**
 * `echo` is a built-in endpoint (SPEC §2, §5): its requests are recorded in its history with
 * behavior `echo`, the request as captured and the echo answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { multipart } from './echo-helpers.js';

void describe('echo history', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app.stop();
  });

  void it('exists as a built-in endpoint', async () => {
    assert.ok(await app.ctx.store.getEndpoint('echo'));
  });

  void it('records an echo request with behavior echo, its request and its answer', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/e/echo/orders?id=7',
      headers: { 'content-type': 'application/json', 'x-trace': 'abc' },
      payload: '{"item":"book"}',
    });
    assert.equal(res.statusCode, 200);
    await app.ctx.history.flush();
    const page = await app.ctx.store.listHistory('echo', {}, 10);
    const entry = page.data.find((e) => e.path === '/orders?id=7');
    assert.ok(entry, 'recorded');
    assert.equal(entry.endpoint, 'echo');
    assert.equal(entry.behavior, 'echo');
    assert.equal(entry.method, 'POST');
    assert.equal(entry.status, 200);
    assert.equal(entry.ip, '127.0.0.1');
    assert.equal(entry.ruleMatched, false);
    assert.equal(entry.requestHeaders['x-trace'], 'abc');
    assert.equal(entry.requestBody, '{"item":"book"}');
    assert.deepEqual(JSON.parse(entry.responseBody), res.json());
    assert.equal(entry.responseHeaders['content-type'], 'application/json; charset=utf-8');
  });

  void it('records requests sent to the host form under the same endpoint', async () => {
    await app.inject({ method: 'DELETE', url: '/via-host', headers: { host: 'echo.localhost' } });
    await app.ctx.history.flush();
    const page = await app.ctx.store.listHistory('echo', { path: { substring: '/via-host' } }, 10);
    assert.equal(page.data.length, 1);
    assert.equal(page.data[0]!.method, 'DELETE');
    assert.equal(page.data[0]!.behavior, 'echo');
  });

  void it('records a preflight with its 204', async () => {
    await app.inject({
      method: 'OPTIONS',
      url: '/e/echo/preflighted',
      headers: { 'access-control-request-method': 'PUT' },
    });
    await app.ctx.history.flush();
    const page = await app.ctx.store.listHistory('echo', { path: { substring: '/preflighted' } }, 10);
    assert.equal(page.data[0]?.status, 204);
  });

  void it('records multipart files with the entry', async () => {
    await app.inject({
      method: 'POST',
      url: '/e/echo/upload',
      headers: { 'content-type': 'multipart/form-data; boundary=b0' },
      payload: multipart('b0', [
        { name: 'doc', value: 'file body', fileName: 'a.txt', contentType: 'text/plain' },
      ]),
    });
    await app.ctx.history.flush();
    const page = await app.ctx.store.listHistory('echo', { path: { substring: '/upload' } }, 10);
    const entry = page.data[0]!;
    assert.deepEqual(entry.files, [{ name: 'doc', fileName: 'a.txt', contentType: 'text/plain', size: 9 }]);
    const file = await app.ctx.store.getHistoryFile('echo', entry.id, 'doc');
    assert.equal(file?.data.toString(), 'file body');
  });
});
