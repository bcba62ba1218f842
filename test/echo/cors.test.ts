/**
 * CORS on the echo (SPEC §2): `Access-Control-Allow-Origin: *` on every answer; a preflight (OPTIONS
 * with Access-Control-Request-Method) gets 204 with the allowed methods, the requested headers echoed
 * and a max age; a plain OPTIONS is echoed like any method.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { ECHO_METHODS, PREFLIGHT_MAX_AGE } from '../../src/echo/index.js';

void describe('echo CORS', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app.stop();
  });

  void it('answers a preflight with 204, every method, the requested headers and a max age', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/e/echo/users',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'x-token, content-type',
      },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const methods = String(res.headers['access-control-allow-methods']).split(', ');
    for (const m of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
      assert.ok(methods.includes(m), m);
    assert.equal(res.headers['access-control-allow-headers'], 'x-token, content-type');
    assert.equal(res.headers['access-control-max-age'], String(PREFLIGHT_MAX_AGE));
    assert.ok(Number(res.headers['access-control-max-age']) > 0);
  });

  void it('sends no Access-Control-Allow-Headers when none were requested', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/e/echo/users',
      headers: { 'access-control-request-method': 'GET' },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-headers'], undefined);
    assert.equal(res.headers['access-control-allow-methods'], ECHO_METHODS);
  });

  void it('allows a requested method outside the usual list, since the echo answers it', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/e/echo/dav',
      headers: { 'access-control-request-method': 'PROPFIND' },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-methods'], `${ECHO_METHODS}, PROPFIND`);
  });

  void it('does not add a requested "method" that is not a method token', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/e/echo/x',
      headers: { 'access-control-request-method': 'GET, EVIL' },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-methods'], ECHO_METHODS);
  });

  void it('answers a preflight sent to the host form the same way', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/users',
      headers: { host: 'echo.localhost', 'access-control-request-method': 'POST' },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
  });

  void it('echoes a plain OPTIONS (no Access-Control-Request-Method) with 200', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/e/echo/users?x=1',
      headers: { origin: 'https://app.example' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const doc = res.json();
    assert.equal(doc.method, 'OPTIONS');
    assert.equal(doc.path, '/users?x=1');
  });

  void it('puts Access-Control-Allow-Origin on echoes of every kind, warnings included', async () => {
    const get = await app.inject({ method: 'GET', url: '/e/echo/' });
    const bad = await app.inject({
      method: 'POST',
      url: '/e/echo/',
      headers: { 'content-type': 'application/json' },
      payload: '{',
    });
    assert.equal(get.headers['access-control-allow-origin'], '*');
    assert.equal(bad.headers['access-control-allow-origin'], '*');
  });
});
