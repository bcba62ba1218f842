/**
 * The echo's two addresses (SPEC §1): the path form `/e/echo/<rest>` and the host form
 * `echo.<BASE_DOMAIN>` give the same echo; host matching ignores case and port; an unknown endpoint
 * gets 404 text/plain with one sentence.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import type { Echo } from './echo-helpers.js';

void describe('echo addressing', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app.stop();
  });

  const get = (url: string, host: string) => app.inject({ method: 'GET', url, headers: { host } });

  void it('gives the same echo for the path form and the host form', async () => {
    const pathForm = await get('/e/echo/users?id=1', 'localhost');
    const hostForm = await get('/users?id=1', 'echo.localhost');
    assert.equal(pathForm.statusCode, 200);
    assert.equal(hostForm.statusCode, 200);
    const a = pathForm.json();
    const b = hostForm.json();
    assert.equal(a.path, '/users?id=1');
    assert.equal(b.path, '/users?id=1');
    assert.deepEqual(a.parsedQueryParams, { id: '1' });
    // Only the host differs.
    assert.equal(b.host, 'echo.localhost');
    const strip = (d: Echo) => ({
      ...d,
      host: undefined,
      headers: { ...d.headers, host: undefined },
    });
    assert.deepEqual(strip(a), strip(b));
  });

  void it('matches the echo host case-insensitively and ignoring the port', async () => {
    for (const host of ['ECHO.LOCALHOST', 'Echo.Localhost:8080', 'echo.localhost:1', 'echo.localhost.']) {
      const res = await get('/users?id=1', host);
      assert.equal(res.statusCode, 200, host);
      assert.equal(res.json().path, '/users?id=1', host);
      assert.equal(res.json().host, host, 'the host is shown as sent');
    }
  });

  void it('answers the path form with any case of the name', async () => {
    const res = await get('/e/ECHO/users', 'localhost');
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().path, '/users');
  });

  void it('maps the bare path form to /', async () => {
    assert.equal((await get('/e/echo', 'localhost')).json().path, '/');
    assert.equal((await get('/e/echo/', 'localhost')).json().path, '/');
    assert.equal((await get('/e/echo?x=1', 'localhost')).json().path, '/?x=1');
    assert.equal((await get('/', 'echo.localhost')).json().path, '/');
  });

  void it('uses the configured BASE_DOMAIN', async () => {
    const other = await startApp({ baseDomain: 'mock.test' });
    try {
      const res = await other.inject({
        method: 'GET',
        url: '/a',
        headers: { host: 'echo.mock.test:9000' },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().path, '/a');
      const notEcho = await other.inject({
        method: 'GET',
        url: '/a',
        headers: { host: 'echo.localhost' },
      });
      assert.doesNotMatch(notEcho.body, /"parsedQueryParams"/, 'echo.localhost is no echo host here');
    } finally {
      await other.stop();
    }
  });

  for (const [form, url, host] of [
    ['path form', '/e/nosuch/users', 'localhost'],
    ['host form', '/users', 'nosuch.localhost'],
  ] as const) {
    void it(`answers an unknown endpoint (${form}) with 404 text/plain and one sentence`, async () => {
      const res = await get(url, host);
      assert.equal(res.statusCode, 404);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      const text = res.body.trim();
      assert.match(text, /"nosuch"/);
      assert.match(text, /does not exist/);
      assert.match(text, /create/i);
      // One sentence: a single full stop, at the end.
      assert.equal(text.split(/[.!?](?:\s|$)/).filter((s) => s.trim() !== '').length, 1, text);
      assert.ok(text.endsWith('.'));
    });
  }
});
