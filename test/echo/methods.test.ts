/**
 * Every method is echoed (SPEC §2): 200, `Content-Type: application/json; charset=utf-8` and
 * `Access-Control-Allow-Origin: *`, the standard methods and WebDAV's alike.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { parseResponse } from '../helpers/raw.js';
import { rawEcho, rawHttp, rawUntilClose } from './echo-helpers.js';

const METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'PROPFIND',
  'MKCOL',
  'REPORT',
  'QUERY',
  'PURGE',
];

void describe('every method is echoed', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({}, { listen: true });
  });
  after(async () => {
    await app.stop();
  });

  for (const method of METHODS) {
    void it(`echoes ${method} with 200, JSON and open CORS`, async () => {
      const res = await app.inject({ method: method as 'GET', url: '/e/echo/m?x=1' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      const doc = res.json();
      assert.equal(doc.method, method);
      assert.equal(doc.path, '/m?x=1');
    });
  }

  void it('answers HEAD with 200, the JSON type, open CORS and no body', async () => {
    // HEAD then a GET on the same connection: the GET's status line must follow the HEAD's headers.
    const text = await rawUntilClose(
      app.port,
      Buffer.concat([
        rawHttp('HEAD', '/e/echo/head'),
        rawHttp('GET', '/e/echo/next', [['Connection', 'close']]),
      ]),
    );
    const head = parseResponse(text);
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(head.headers['access-control-allow-origin'], '*');
    const afterHead = text.slice(text.indexOf('\r\n\r\n') + 4);
    assert.match(afterHead, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(afterHead, /"path":"\/next"/);
  });

  void it('echoes methods with a body over a real socket (PROPFIND with XML)', async () => {
    const xml = '<?xml version="1.0"?><propfind xmlns="DAV:"><allprop/></propfind>';
    const { res, doc } = await rawEcho(
      app.port,
      rawHttp(
        'PROPFIND',
        '/e/echo/dav',
        [
          ['Content-Type', 'application/xml'],
          ['Depth', '1'],
        ],
        xml,
      ),
    );
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(doc.method, 'PROPFIND');
    assert.equal(doc.rawBody, xml);
  });

  void it('echoes a QUERY without Content-Type (Fastify alone would refuse it)', async () => {
    const { doc } = await rawEcho(app.port, rawHttp('QUERY', '/e/echo/q', [], 'select'));
    assert.equal(doc.method, 'QUERY');
    assert.equal(doc.rawBody, 'select');
  });

  void it('answers 200 even when the request earns warnings', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/e/echo/w',
      headers: { 'content-type': 'application/json' },
      payload: '{nope',
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().warnings.length, 1);
  });
});
