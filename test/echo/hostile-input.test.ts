/**
 * Hostile input never crashes or hangs the echo: each request gets a 200 echo (with a warning where
 * something was wrong) or a clear 4xx, and the next request, on a new connection, is served normally.
 * Regression tests named after what they stop: prototype pollution, stack overflow on deep JSON,
 * multipart parser abuse, oversized paths.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { rawRequest, type RawResponse } from '../helpers/raw.js';
import { INVALID_UTF8_WARNING, JSON_MAX_DEPTH, MULTIPART_MAX_PARTS } from '../../src/http/index.js';
import { assertServes, multipart, rawEcho, rawHttp } from './echo-helpers.js';

const MP_ERROR = /^Error in parsing multipart body\. \[.+\]$/;

function postMultipart(boundary: string, body: Buffer | string): Buffer {
  return rawHttp(
    'POST',
    '/e/echo/form',
    [['Content-Type', `multipart/form-data; boundary=${boundary}`]],
    body,
  );
}

void describe('hostile input', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({}, { listen: true });
  });
  afterEach(async () => {
    await assertServes(app.port);
    assert.equal(({} as Record<string, unknown>).x, undefined, 'Object.prototype stays clean');
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'x'), false);
  });
  after(async () => {
    await app.stop();
  });

  void it('malformed JSON: 200 with the JSON warning', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('POST', '/e/echo/j', [['Content-Type', 'application/json']], '{"a":'),
    );
    assert.match(doc.warnings[0], /^Error in parsing JSON body\. \[.+\]$/);
    assert.equal(doc.rawBody, '{"a":');
  });

  void it(`JSON nested ${JSON_MAX_DEPTH} levels is parsed, one more is shown raw with a warning (no stack overflow)`, async () => {
    const nest = (d: number) => '['.repeat(d) + ']'.repeat(d);
    const ok = await rawEcho(
      app.port,
      rawHttp('POST', '/e/echo/j', [['Content-Type', 'application/json']], nest(JSON_MAX_DEPTH)),
    );
    assert.ok(Array.isArray(ok.doc.parsedBody));
    assert.equal('warnings' in ok.doc, false);
    for (const depth of [JSON_MAX_DEPTH + 1, 100_000]) {
      const { doc } = await rawEcho(
        app.port,
        rawHttp('POST', '/e/echo/j', [['Content-Type', 'application/json']], nest(depth)),
      );
      assert.equal('parsedBody' in doc, false);
      assert.deepEqual(doc.warnings, [
        `Error in parsing JSON body. [JSON nested deeper than ${JSON_MAX_DEPTH} levels]`,
      ]);
      assert.equal(doc.rawBody.length, depth * 2);
    }
  });

  void it('deep JSON without Content-Type is refused by the sniffer the same way', async () => {
    const text = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000);
    const { doc } = await rawEcho(app.port, rawHttp('POST', '/e/echo/j', [], text));
    assert.equal('parsedBody' in doc, false);
    assert.equal(doc.warnings.length, 2);
  });

  void it('multipart without the final boundary: 200 with a multipart warning and rawBody', async () => {
    const body = multipart('zz', [{ name: 'a', value: '1' }], false);
    const { doc } = await rawEcho(app.port, postMultipart('zz', body));
    assert.match(doc.warnings[0], MP_ERROR);
    assert.equal(doc.rawBody, body.toString());
    assert.equal('parsedBody' in doc, false);
  });

  void it('a multipart boundary of 70 characters is accepted, 71 refused with a warning', async () => {
    const b70 = 'b'.repeat(70);
    const ok = await rawEcho(app.port, postMultipart(b70, multipart(b70, [{ name: 'a', value: '1' }])));
    assert.deepEqual(ok.doc.parsedBody, { textFields: { a: '1' }, files: [] });
    const b71 = 'b'.repeat(71);
    const { doc } = await rawEcho(app.port, postMultipart(b71, multipart(b71, [{ name: 'a', value: '1' }])));
    assert.deepEqual(doc.warnings, [
      'Error in parsing multipart body. [Multipart boundary is longer than 70 characters]',
    ]);
    assert.equal('parsedBody' in doc, false);
  });

  void it('a multipart boundary thousands of characters long', async () => {
    const huge = 'q'.repeat(5000);
    const { doc } = await rawEcho(
      app.port,
      postMultipart(huge, multipart(huge, [{ name: 'a', value: '1' }])),
    );
    assert.match(doc.warnings[0], MP_ERROR);
  });

  void it('a multipart part header line starting with a space', async () => {
    const body = '--zz\r\n Content-Disposition: form-data; name="a"\r\n\r\n1\r\n--zz--\r\n';
    const { doc } = await rawEcho(app.port, postMultipart('zz', body));
    assert.match(doc.warnings[0], MP_ERROR);
    assert.equal(doc.rawBody, body);
  });

  void it('a multipart Content-Type without boundary', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('POST', '/e/echo/f', [['Content-Type', 'multipart/form-data']], 'x'),
    );
    assert.match(doc.warnings[0], MP_ERROR);
  });

  void it(`5000 multipart parts: the first ${MULTIPART_MAX_PARTS} kept, a warning for the rest`, async () => {
    const parts = Array.from({ length: 5000 }, (_, i) => ({ name: `f${i}`, value: String(i) }));
    const { doc } = await rawEcho(app.port, postMultipart('zz', multipart('zz', parts)));
    const fields = Object.keys(doc.parsedBody.textFields);
    assert.equal(fields.length, MULTIPART_MAX_PARTS);
    assert.equal(doc.parsedBody.textFields.f0, '0');
    assert.equal(doc.parsedBody.textFields[`f${MULTIPART_MAX_PARTS}`], undefined);
    assert.deepEqual(doc.warnings, [
      `Multipart body has more than ${MULTIPART_MAX_PARTS} parts; the rest were ignored.`,
    ]);
  });

  void it('a header named __proto__ is echoed as data', async () => {
    const { res, doc } = await rawEcho(
      app.port,
      rawHttp('GET', '/e/echo/p', [
        ['__proto__', 'polluted'],
        ['constructor', 'c'],
      ]),
    );
    assert.match(res.body, /"__proto__":"polluted"/);
    assert.equal(Object.getOwnPropertyDescriptor(doc.headers, '__proto__')?.value, 'polluted');
    assert.equal(doc.headers.constructor, 'c');
  });

  void it('a JSON body {"__proto__": {"x": 1}} is echoed as data and pollutes nothing', async () => {
    const text = '{"__proto__": {"x": 1}, "constructor": {"prototype": {"x": 2}}}';
    const { res, doc } = await rawEcho(
      app.port,
      rawHttp('POST', '/e/echo/p', [['Content-Type', 'application/json']], text),
    );
    assert.match(res.body, /"parsedBody":\{"__proto__":\{"x":1\},"constructor":\{"prototype":\{"x":2\}\}\}/);
    assert.deepEqual(Object.getOwnPropertyDescriptor(doc.parsedBody, '__proto__')?.value, { x: 1 });
  });

  void it('form fields and multipart fields named __proto__ are data', async () => {
    const form = await rawEcho(
      app.port,
      rawHttp(
        'POST',
        '/e/echo/p',
        [['Content-Type', 'application/x-www-form-urlencoded']],
        '__proto__[x]=1&__proto__=2&__proto__=3',
      ),
    );
    assert.match(form.res.body, /"parsedBody":\{"__proto__\[x\]":"1","__proto__":\["2","3"\]\}/);
    const mp = await rawEcho(
      app.port,
      postMultipart('zz', multipart('zz', [{ name: '__proto__', value: 'v' }])),
    );
    assert.match(mp.res.body, /"textFields":\{"__proto__":"v"\}/);
  });

  void it('a query ?__proto__[x]=1&constructor=2 is data', async () => {
    const { res } = await rawEcho(
      app.port,
      rawHttp('GET', '/e/echo/q?__proto__[x]=1&constructor=2&__proto__=3'),
    );
    assert.match(res.body, /"parsedQueryParams":\{"__proto__\[x\]":"1","constructor":"2","__proto__":"3"\}/);
  });

  for (const [label, headers] of [
    ['declared JSON', [['Content-Type', 'application/json']]],
    ['text/plain', [['Content-Type', 'text/plain']]],
    ['no Content-Type', []],
  ] as [string, [string, string][]][]) {
    void it(`invalid UTF-8 bytes (${label}): 200 with a UTF-8 warning`, async () => {
      const bytes = Buffer.from([0x22, 0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x22]);
      const { doc } = await rawEcho(app.port, rawHttp('POST', '/e/echo/u', headers, bytes));
      assert.ok(doc.warnings.includes(INVALID_UTF8_WARNING), JSON.stringify(doc.warnings));
      assert.equal(typeof doc.rawBody === 'string' || typeof doc.parsedBody === 'string', true);
    });
  }

  void it('valid UTF-8 earns no UTF-8 warning', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('POST', '/e/echo/u', [['Content-Type', 'text/plain']], 'héllo ✓ 😀'),
    );
    assert.equal('warnings' in doc, false);
    assert.equal(doc.rawBody, 'héllo ✓ 😀');
  });

  void it('NUL and control bytes in a body are echoed', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('POST', '/e/echo/n', [['Content-Type', 'text/plain']], 'a\u0000b\u0001c'),
    );
    assert.equal(doc.rawBody, 'a\u0000b\u0001c');
  });

  void it('bytes above 0x7f in header values are echoed, not fatal', async () => {
    const req = Buffer.concat([
      rawHttp('GET', '/e/echo/h').subarray(0, -2),
      Buffer.from('X-Bin: caf\xe9\r\n\r\n', 'latin1'),
    ]);
    const { doc } = await rawEcho(app.port, req);
    assert.equal(typeof doc.headers['x-bin'], 'string');
  });

  void it('a very long path (8 KB) in both forms', async () => {
    const long = '/' + 'a'.repeat(8192);
    const pathForm = await rawEcho(app.port, rawHttp('GET', '/e/echo' + long + '?q=1'));
    assert.equal(pathForm.doc.path, long + '?q=1');
    const hostForm = await rawEcho(app.port, rawHttp('GET', long, [['Host', 'echo.localhost']]));
    assert.equal(hostForm.doc.path, long);
  });

  void it('a path with many segments and encoded oddities', async () => {
    const path = '/' + Array.from({ length: 800 }, () => '%00%2F..').join('/');
    const { doc } = await rawEcho(app.port, rawHttp('GET', '/e/echo' + path));
    assert.equal(doc.path, path);
  });

  /** A refusal from Node's parser: the §4 error body, CORS, and the connection closed. */
  function assertParserRefusal(res: RawResponse, status: number, code: string): void {
    assert.equal(res.status, status);
    assert.match(res.headers['content-type'] ?? '', /^application\/json/);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['connection'], 'close');
    const body = JSON.parse(res.body) as { error: { code: string; message: string } };
    assert.equal(body.error.code, code);
    assert.ok(body.error.message.length > 0);
  }

  void it('a path beyond the size Node accepts (20 KB) gets a clear 431', async () => {
    const res = await rawRequest(app.port, rawHttp('GET', '/e/echo/' + 'p'.repeat(20_000)));
    assertParserRefusal(res, 431, 'header_too_large');
  });

  void it('headers over the size Node accepts get a clear 431', async () => {
    const res = await rawRequest(app.port, rawHttp('GET', '/e/echo/big', [['X-Big', 'v'.repeat(20_000)]]));
    assertParserRefusal(res, 431, 'header_too_large');
  });

  void it('bytes that are not HTTP get 400 validation_error, and the server keeps serving', async () => {
    const res = await rawRequest(app.port, 'HELLO THERE\r\n\r\n');
    assertParserRefusal(res, 400, 'validation_error');
    const bad = await rawRequest(
      app.port,
      'GET /e/echo/x HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n',
    );
    assertParserRefusal(bad, 400, 'validation_error');
    const { doc } = await rawEcho(app.port, rawHttp('GET', '/e/echo/after'));
    assert.equal(doc.path, '/after');
  });

  void it('hundreds of repeats of one header give one warning', async () => {
    const headers = Array.from({ length: 500 }, (_, i): [string, string] => ['X-Dup', String(i)]);
    const { doc } = await rawEcho(app.port, rawHttp('GET', '/e/echo/d', headers));
    assert.deepEqual(doc.warnings, ['Duplicate headers found: x-dup']);
    assert.equal(doc.headers['x-dup'], '499');
  });

  void it('a malformed chunked body gets a clear 400 from the HTTP parser', async () => {
    const res = await rawRequest(
      app.port,
      rawHttp('POST', '/e/echo/c', [['Transfer-Encoding', 'chunked']], 'zz\r\nnope\r\n0\r\n\r\n'),
    );
    assert.equal(res.status, 400);
  });

  void it('thousands of query parameters', async () => {
    const query = Array.from({ length: 1500 }, (_, i) => `k${i % 100}=${i % 10}`).join('&');
    const { doc } = await rawEcho(app.port, rawHttp('GET', '/e/echo/q?' + query));
    assert.equal(Object.keys(doc.parsedQueryParams).length, 100);
    assert.equal(doc.parsedQueryParams.k0.length, 15);
  });
});
