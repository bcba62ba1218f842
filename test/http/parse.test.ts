/**
 * Unit tests of body parsing (src/http/parse.ts): every declared type, the sniffing of bodies without
 * Content-Type, and the limits (JSON depth, multipart parts, boundary length), each at limit − 1,
 * limit and limit + 1.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  INVALID_UTF8_WARNING,
  JSON_MAX_DEPTH,
  jsonBody,
  MULTIPART_MAX_BOUNDARY,
  MULTIPART_MAX_PARTS,
  isJsonType,
  parseBody,
  parseUrlEncoded,
} from '../../src/http/index.js';

const MISSING = 'Missing Content-Type header for the POST request.';
const b = (s: string | Buffer) => (Buffer.isBuffer(s) ? s : Buffer.from(s));

function fields(boundary: string, n: number): Buffer {
  let s = '';
  for (let i = 0; i < n; i++)
    s += `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${i}\r\n`;
  return b(s + `--${boundary}--\r\n`);
}

void describe('isJsonType', () => {
  void it('accepts application/json and every +json type, with parameters and in any case', () => {
    for (const t of [
      'application/json',
      'Application/JSON; charset=utf-8',
      'application/vnd.api+json',
      'application/problem+json ; x=y',
    ])
      assert.equal(isJsonType(t), true, t);
  });
  void it('refuses other types', () => {
    for (const t of [
      'text/plain',
      'application/jsonp',
      'application/json-seq',
      'text/json+',
      'application/xml',
      '',
    ])
      assert.equal(isJsonType(t), false, t);
  });
});

void describe('parseUrlEncoded', () => {
  void it('maps repeated fields to arrays, into a null-prototype object', () => {
    const out = parseUrlEncoded('a=1&a=2&a=3&b=x&__proto__=p');
    assert.deepEqual({ ...out }, { a: ['1', '2', '3'], b: 'x', ['__proto__']: 'p' });
    assert.equal(Object.getPrototypeOf(out), null);
  });
});

void describe('parseBody', () => {
  void it('gives kind none and nothing to show for an empty body with a type', async () => {
    const r = await parseBody('POST', 'application/json', b(''));
    assert.deepEqual(r, { kind: 'none', files: [], showRaw: false, warnings: [] });
  });

  void it('warns only for POST without Content-Type', async () => {
    assert.deepEqual((await parseBody('POST', undefined, b(''))).warnings, [MISSING]);
    assert.deepEqual((await parseBody('PUT', undefined, b(''))).warnings, []);
    assert.deepEqual((await parseBody('GET', undefined, b(''))).warnings, []);
    assert.equal((await parseBody('GET', undefined, b(''))).showRaw, false);
  });

  void it('sniffs JSON without Content-Type, keeping the raw text shown', async () => {
    const r = await parseBody('POST', undefined, b('\n {"a":[1]}'));
    assert.equal(r.kind, 'json');
    assert.deepEqual(r.value, { a: [1] });
    assert.equal(r.showRaw, true);
  });

  void it('reports a JSON parse error for declared JSON and keeps the text', async () => {
    const r = await parseBody('PATCH', 'application/merge-patch+json', b('{"a" 1}'));
    assert.equal(r.kind, 'text');
    assert.equal(r.value, undefined);
    assert.equal(r.showRaw, true);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0]!, /^Error in parsing JSON body\. \[.+\]$/);
  });

  void it('shows other declared types raw, without warnings', async () => {
    const r = await parseBody('POST', 'application/xml', b('<a/>'));
    assert.deepEqual(r, { kind: 'text', files: [], showRaw: true, warnings: [] });
  });

  void it('keeps multipart file contents for the history', async () => {
    const body = b(
      '--x\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n\u0000\u00ff\r\n--x--\r\n',
    );
    const r = await parseBody('POST', 'multipart/form-data; boundary=x', body);
    assert.equal(r.kind, 'multipart');
    assert.equal(r.files.length, 1);
    assert.equal(r.files[0]!.fileName, 'a.bin');
    assert.deepEqual(r.files[0]!.data, Buffer.from('\u0000\u00ff'));
    assert.deepEqual(r.warnings, [], 'binary files are not checked for UTF-8');
  });

  void it('keeps the last value of a repeated multipart text field', async () => {
    const body = b(
      '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n2\r\n--x--\r\n',
    );
    const r = await parseBody('POST', 'multipart/form-data; boundary=x', body);
    assert.deepEqual({ ...(r.value as { textFields: object }).textFields }, { a: '2' });
  });

  void it('warns about invalid UTF-8 in a body shown as text', async () => {
    const r = await parseBody('POST', 'text/plain', Buffer.from([0x61, 0xc3]));
    assert.deepEqual(r.warnings, [INVALID_UTF8_WARNING]);
  });

  void describe(`JSON depth limit (${JSON_MAX_DEPTH})`, () => {
    const nest = (d: number) => b('{"a":'.repeat(d) + '0' + '}'.repeat(d));
    for (const d of [JSON_MAX_DEPTH - 1, JSON_MAX_DEPTH]) {
      void it(`parses ${d} levels`, async () => {
        const r = await parseBody('POST', 'application/json', nest(d));
        assert.equal(r.kind, 'json');
        assert.deepEqual(r.warnings, []);
      });
    }
    void it(`refuses ${JSON_MAX_DEPTH + 1} levels with the JSON warning`, async () => {
      const r = await parseBody('POST', 'application/json', nest(JSON_MAX_DEPTH + 1));
      assert.equal(r.kind, 'text');
      assert.equal(r.showRaw, true);
      assert.deepEqual(r.warnings, [
        `Error in parsing JSON body. [JSON nested deeper than ${JSON_MAX_DEPTH} levels]`,
      ]);
    });
    void it('counts arrays and objects alike and measures the deepest branch', async () => {
      const wide = JSON.stringify({ x: Array.from({ length: 1000 }, () => ({ y: [1] })) });
      assert.equal((await parseBody('POST', 'application/json', b(wide))).kind, 'json');
      const mixed = '[{"a":'.repeat(JSON_MAX_DEPTH / 2) + '[]' + '}]'.repeat(JSON_MAX_DEPTH / 2);
      assert.equal((await parseBody('POST', 'application/json', b(mixed))).kind, 'text');
    });
  });

  void describe(`multipart parts limit (${MULTIPART_MAX_PARTS})`, () => {
    for (const n of [MULTIPART_MAX_PARTS - 1, MULTIPART_MAX_PARTS]) {
      void it(`keeps all of ${n} parts without warning`, async () => {
        const r = await parseBody('POST', 'multipart/form-data; boundary=p', fields('p', n));
        assert.equal(Object.keys((r.value as { textFields: object }).textFields).length, n);
        assert.deepEqual(r.warnings, []);
      });
    }
    void it(`keeps ${MULTIPART_MAX_PARTS} of ${MULTIPART_MAX_PARTS + 1} parts and warns`, async () => {
      const r = await parseBody(
        'POST',
        'multipart/form-data; boundary=p',
        fields('p', MULTIPART_MAX_PARTS + 1),
      );
      assert.equal(Object.keys((r.value as { textFields: object }).textFields).length, MULTIPART_MAX_PARTS);
      assert.deepEqual(r.warnings, [
        `Multipart body has more than ${MULTIPART_MAX_PARTS} parts; the rest were ignored.`,
      ]);
    });
  });

  void it('ignores file parts beyond the parts limit too', async () => {
    const head = fields('p', MULTIPART_MAX_PARTS).subarray(0, -`--p--\r\n`.length).toString();
    const file =
      '--p\r\nContent-Disposition: form-data; name="late"; filename="late.txt"\r\n\r\nlate\r\n--p--\r\n';
    const r = await parseBody('POST', 'multipart/form-data; boundary=p', b(head + file));
    assert.equal(r.kind, 'multipart');
    assert.deepEqual(r.files, []);
    assert.equal(r.warnings.length, 1);
  });

  void describe(`multipart boundary length limit (${MULTIPART_MAX_BOUNDARY})`, () => {
    for (const n of [MULTIPART_MAX_BOUNDARY - 1, MULTIPART_MAX_BOUNDARY]) {
      void it(`accepts a boundary of ${n} characters, quoted or not`, async () => {
        const boundary = 'k'.repeat(n);
        for (const ct of [
          `multipart/form-data; boundary=${boundary}`,
          `multipart/form-data; boundary="${boundary}"`,
        ]) {
          const r = await parseBody('POST', ct, fields(boundary, 1));
          assert.equal(r.kind, 'multipart', ct);
        }
      });
    }
    void it(`refuses a boundary of ${MULTIPART_MAX_BOUNDARY + 1} characters with a warning`, async () => {
      const boundary = 'k'.repeat(MULTIPART_MAX_BOUNDARY + 1);
      const r = await parseBody('POST', `multipart/form-data; BOUNDARY="${boundary}"`, fields(boundary, 1));
      assert.equal(r.kind, 'text');
      assert.equal(r.showRaw, true);
      assert.deepEqual(r.warnings, [
        `Error in parsing multipart body. [Multipart boundary is longer than ${MULTIPART_MAX_BOUNDARY} characters]`,
      ]);
    });
  });
});

void describe('jsonBody', () => {
  void it('is what parseBody gives for the same JSON, without parsing it back', async () => {
    const value = { id: 'a1', n: [1, { b: true }] };
    const text = JSON.stringify(value);
    const body = jsonBody(text, value);
    assert.equal(body.value, value, 'the value itself, not a copy');
    assert.deepEqual(body, await parseBody('POST', 'application/json', Buffer.from(text)));
  });

  void it('a value nested past JSON_MAX_DEPTH is text with the warning, as parseBody says', async () => {
    let value: unknown = 1;
    for (let i = 0; i < JSON_MAX_DEPTH + 1; i++) value = [value];
    const text = JSON.stringify(value);
    const body = jsonBody(text, value);
    assert.deepEqual(body, await parseBody('POST', 'application/json', Buffer.from(text)));
    assert.equal(body.kind, 'text');
    let ok: unknown = 1;
    for (let i = 0; i < JSON_MAX_DEPTH; i++) ok = [ok];
    assert.equal(jsonBody(JSON.stringify(ok), ok).kind, 'json');
  });
});
