/**
 * The echo document (SPEC §2): the fields in their order, headers lower-cased with the last value of
 * a repeat, the query parsed (repeated key → array), the client address without port.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { rawEcho, rawHttp, type Echo } from './echo-helpers.js';

void describe('echo document fields', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({}, { listen: true });
  });
  after(async () => {
    await app.stop();
  });

  async function get(url: string, headers: Record<string, string> = {}): Promise<Echo> {
    const res = await app.inject({ method: 'GET', url, headers });
    assert.equal(res.statusCode, 200);
    return res.json();
  }

  void it('lists all ten fields in the order of SPEC §2 when all apply', async () => {
    // No Content-Type on a POST: parsedBody (sniffed JSON), rawBody and a warning all appear.
    const { doc, res } = await rawEcho(app.port, rawHttp('POST', '/e/echo/orders?id=7', [], '{"a":1}'));
    assert.deepEqual(Object.keys(doc), [
      'method',
      'protocol',
      'host',
      'path',
      'ip',
      'headers',
      'parsedQueryParams',
      'parsedBody',
      'rawBody',
      'warnings',
    ]);
    // The order is the order on the wire, not only of a parsed object.
    assert.match(
      res.body,
      /^\{"method":"POST","protocol":"http","host":"localhost","path":"\/orders\?id=7","ip":"127\.0\.0\.1","headers":/,
    );
  });

  void it('shows only the always-present fields for a GET without body or warnings', async () => {
    const doc = await get('/e/echo/plain');
    assert.deepEqual(Object.keys(doc), [
      'method',
      'protocol',
      'host',
      'path',
      'ip',
      'headers',
      'parsedQueryParams',
    ]);
    assert.equal(doc.method, 'GET');
    assert.equal(doc.protocol, 'http');
    assert.equal(doc.path, '/plain');
  });

  void it('shows the host as sent and the client address without port', async () => {
    const { doc } = await rawEcho(app.port, rawHttp('GET', '/e/echo/', [['Host', `localhost:${app.port}`]]));
    assert.equal(doc.host, `localhost:${app.port}`);
    assert.equal(doc.ip, '127.0.0.1');
    assert.doesNotMatch(doc.ip, /:\d+$/);
  });

  void it('lower-cases header names and keeps header values as sent', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('GET', '/e/echo/h', [
        ['X-Custom-Header', 'Mixed Case Value'],
        ['ACCEPT', 'text/html'],
      ]),
    );
    assert.equal(doc.headers['x-custom-header'], 'Mixed Case Value');
    assert.equal(doc.headers['accept'], 'text/html');
    assert.ok(Object.keys(doc.headers).every((k) => k === k.toLowerCase()));
  });

  void it('shows the last value of a repeated header', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('GET', '/e/echo/h', [
        ['X-Multi', 'first'],
        ['x-multi', 'second'],
        ['X-MULTI', 'third'],
      ]),
    );
    assert.equal(doc.headers['x-multi'], 'third');
  });

  void it('gives {} as parsedQueryParams without a query', async () => {
    assert.deepEqual((await get('/e/echo/users')).parsedQueryParams, {});
    assert.deepEqual((await get('/e/echo/users?')).parsedQueryParams, {});
  });

  void it('maps a key given once to a string and a repeated key to an array of strings', async () => {
    const doc = await get('/e/echo/users?id=1&tag=a&tag=b&tag=c&empty=');
    assert.equal(doc.path, '/users?id=1&tag=a&tag=b&tag=c&empty=');
    assert.deepEqual(doc.parsedQueryParams, { id: '1', tag: ['a', 'b', 'c'], empty: '' });
  });

  void it('decodes percent-escapes and + in query values', async () => {
    const doc = await get('/e/echo/s?q=hello%20world&plus=a+b&%C3%A9=%E2%82%AC');
    assert.deepEqual(doc.parsedQueryParams, { q: 'hello world', plus: 'a b', é: '€' });
  });

  void it('keeps the path as sent on the wire, query string included', async () => {
    const { doc } = await rawEcho(app.port, rawHttp('GET', '/e/echo/a/b/../c//d?x=1&y=%20'));
    assert.equal(doc.path, '/a/b/../c//d?x=1&y=%20');
  });
});
