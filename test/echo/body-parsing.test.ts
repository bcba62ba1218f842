/**
 * parsedBody and rawBody by Content-Type (SPEC §2): JSON and every +json type, urlencoded forms,
 * multipart, other types as raw text, the missing Content-Type of a POST with JSON sniffing, and
 * malformed JSON answered 200 with the seed's warning.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { multipart, rawEcho, rawHttp, type Echo } from './echo-helpers.js';

const MISSING = 'Missing Content-Type header for the POST request.';

/** The warning the seed prescribes, with the message of this Node's JSON parser. */
function jsonWarning(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return `Error in parsing JSON body. [${(err as Error).message}]`;
  }
  throw new Error('test input parses');
}

void describe('echo body parsing', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({}, { listen: true });
  });
  after(async () => {
    await app.stop();
  });

  async function post(contentType: string, payload: string | Buffer, method = 'POST'): Promise<Echo> {
    const res = await app.inject({
      method: method as 'POST',
      url: '/e/echo/body',
      headers: { 'content-type': contentType },
      payload,
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    return res.json();
  }

  void it('parses application/json without rawBody or warnings', async () => {
    const doc = await post('application/json', '{"name":"Ada","tags":[1,2],"nested":{"ok":true}}');
    assert.deepEqual(doc.parsedBody, { name: 'Ada', tags: [1, 2], nested: { ok: true } });
    assert.equal('rawBody' in doc, false);
    assert.equal('warnings' in doc, false);
  });

  void it('parses JSON arrays and scalars, and JSON with parameters or in upper case', async () => {
    assert.deepEqual((await post('application/json', '[1,"two"]')).parsedBody, [1, 'two']);
    assert.equal((await post('application/json', '42')).parsedBody, 42);
    assert.deepEqual((await post('application/json; charset=utf-8', '{"a":1}')).parsedBody, { a: 1 });
    assert.deepEqual((await post('APPLICATION/JSON', '{"a":2}')).parsedBody, { a: 2 });
  });

  void it('parses every +json type', async () => {
    for (const t of [
      'application/vnd.api+json',
      'application/problem+json',
      'application/ld+json; profile=x',
    ]) {
      const doc = await post(t, '{"data":{"type":"users"}}');
      assert.deepEqual(doc.parsedBody, { data: { type: 'users' } }, t);
      assert.equal('rawBody' in doc, false, t);
    }
  });

  void it('parses JSON for PUT, PATCH and DELETE as for POST', async () => {
    for (const m of ['PUT', 'PATCH', 'DELETE']) {
      const doc = await post('application/json', '{"m":1}', m);
      assert.equal(doc.method, m);
      assert.deepEqual(doc.parsedBody, { m: 1 });
    }
  });

  void it('answers malformed JSON with 200, the seed warning with the parser message, and rawBody', async () => {
    const text = '{"a": 1,,}';
    const doc = await post('application/json', text);
    assert.equal('parsedBody' in doc, false);
    assert.equal(doc.rawBody, text);
    assert.match(doc.warnings[0], /^Error in parsing JSON body\. \[.+\]$/);
    assert.deepEqual(doc.warnings, [jsonWarning(text)]);
  });

  void it('gives the JSON warning for a malformed +json body too', async () => {
    const doc = await post('application/vnd.api+json', '{oops');
    assert.deepEqual(doc.warnings, [jsonWarning('{oops')]);
    assert.equal(doc.rawBody, '{oops');
  });

  void it('parses urlencoded forms, a repeated field as an array of strings', async () => {
    const doc = await post('application/x-www-form-urlencoded', 'name=Ada+Lovelace&lang=en&lang=fr&x=%26');
    assert.deepEqual(doc.parsedBody, { name: 'Ada Lovelace', lang: ['en', 'fr'], x: '&' });
    assert.equal('rawBody' in doc, false);
    assert.equal('warnings' in doc, false);
  });

  void it('parses multipart into textFields and files with name, fileName, contentType and size', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2]);
    const body = multipart('XyZ123', [
      { name: 'title', value: 'Holiday' },
      { name: 'photo', value: png, fileName: 'beach.png', contentType: 'image/png' },
      { name: 'notes', value: 'hello\nworld', fileName: 'notes.txt', contentType: 'text/plain' },
    ]);
    const doc = await post('multipart/form-data; boundary=XyZ123', body);
    assert.deepEqual(doc.parsedBody, {
      textFields: { title: 'Holiday' },
      files: [
        { name: 'photo', fileName: 'beach.png', contentType: 'image/png', size: png.length },
        { name: 'notes', fileName: 'notes.txt', contentType: 'text/plain', size: 11 },
      ],
    });
    assert.equal('rawBody' in doc, false);
    assert.equal('warnings' in doc, false, 'binary file contents are no UTF-8 problem');
  });

  void it('accepts a quoted multipart boundary', async () => {
    const doc = await post(
      'multipart/form-data; boundary="a b:c"',
      multipart('a b:c', [{ name: 'k', value: 'v' }]),
    );
    assert.deepEqual(doc.parsedBody, { textFields: { k: 'v' }, files: [] });
  });

  void it('shows text/plain, application/xml and unknown types in rawBody only', async () => {
    for (const [type, text] of [
      ['text/plain', 'just text {"a":1}'],
      ['application/xml', '<user><id>1</id></user>'],
      ['text/csv; charset=utf-8', 'a,b\n1,2'],
      ['application/octet-stream', 'bytes'],
    ] as const) {
      const doc = await post(type, text);
      assert.equal(doc.rawBody, text, type);
      assert.equal('parsedBody' in doc, false, type);
      assert.equal('warnings' in doc, false, type);
    }
  });

  void it('shows no parsedBody and no rawBody for a declared type with an empty body', async () => {
    const doc = await post('application/json', '');
    assert.equal('parsedBody' in doc, false);
    assert.equal('rawBody' in doc, false);
    assert.equal('warnings' in doc, false);
  });

  void it('echoes Content-Types that Fastify itself would refuse (no slash, empty, only separators)', async () => {
    for (const type of ['text', ';;;', 'application/json, text/plain']) {
      const doc = await post(type, 'payload');
      assert.equal(doc.headers['content-type'], type);
      assert.equal(doc.rawBody, 'payload', type);
    }
    const { doc } = await rawEcho(app.port, rawHttp('POST', '/e/echo/x', [['Content-Type', '']], 'hi'));
    assert.equal(doc.rawBody, 'hi');
  });

  void describe('without Content-Type (raw socket)', () => {
    void it('warns on a POST and shows the body in rawBody', async () => {
      const { doc } = await rawEcho(app.port, rawHttp('POST', '/e/echo/x', [], 'hello there'));
      assert.equal('content-type' in doc.headers, false);
      assert.deepEqual(doc.warnings, [MISSING]);
      assert.equal(doc.rawBody, 'hello there');
      assert.equal('parsedBody' in doc, false);
    });

    void it('warns on a POST without body too, with an empty rawBody', async () => {
      const { doc } = await rawEcho(app.port, rawHttp('POST', '/e/echo/x', [['Content-Length', '0']]));
      assert.deepEqual(doc.warnings, [MISSING]);
      assert.equal(doc.rawBody, '');
    });

    void it('parses text that is JSON, keeping rawBody and the warning', async () => {
      for (const text of ['{"a":1}', '  [1, 2]']) {
        const { doc } = await rawEcho(app.port, rawHttp('POST', '/e/echo/x', [], text));
        assert.deepEqual(doc.parsedBody, JSON.parse(text));
        assert.equal(doc.rawBody, text);
        assert.deepEqual(doc.warnings, [MISSING]);
      }
    });

    void it('adds the JSON warning when the text starts like JSON but is broken', async () => {
      for (const text of ['{"a":', '[1,2', ' {broken}']) {
        const { doc } = await rawEcho(app.port, rawHttp('POST', '/e/echo/x', [], text));
        assert.deepEqual(doc.warnings, [MISSING, jsonWarning(text)], text);
        assert.equal(doc.rawBody, text);
        assert.equal('parsedBody' in doc, false);
      }
    });

    void it('does not sniff text that does not start like JSON', async () => {
      const { doc } = await rawEcho(app.port, rawHttp('POST', '/e/echo/x', [], '42'));
      assert.deepEqual(doc.warnings, [MISSING]);
      assert.equal('parsedBody' in doc, false);
    });

    void it('shows the body of another method in rawBody without the POST warning', async () => {
      const { doc } = await rawEcho(app.port, rawHttp('PUT', '/e/echo/x', [], 'put body'));
      assert.equal(doc.rawBody, 'put body');
      assert.equal('warnings' in doc, false);
    });

    void it('reads a chunked body without Content-Type', async () => {
      const body = '5\r\n{"a":\r\n2\r\n1}\r\n0\r\n\r\n';
      const { doc } = await rawEcho(
        app.port,
        rawHttp('POST', '/e/echo/x', [['Transfer-Encoding', 'chunked']], body),
      );
      assert.deepEqual(doc.parsedBody, { a: 1 });
      assert.equal(doc.rawBody, '{"a":1}');
    });

    void it('shows nothing body-related for a GET without body', async () => {
      const { doc } = await rawEcho(app.port, rawHttp('GET', '/e/echo/x'));
      assert.equal('parsedBody' in doc, false);
      assert.equal('rawBody' in doc, false);
      assert.equal('warnings' in doc, false);
    });

    void it('reads the body of a GET too', async () => {
      const { doc } = await rawEcho(
        app.port,
        rawHttp('GET', '/e/echo/x', [['Content-Type', 'application/json']], '{"q":1}'),
      );
      assert.deepEqual(doc.parsedBody, { q: 1 });
    });
  });
});
