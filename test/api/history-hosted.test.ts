/**
 * The history API in the hosted service's forms, as its scripts use it: entry field names (`date`,
 * `timeTaken`, `isMultipart`, `ruleId` only when matched, `request.body` null without a body, the
 * HTTP version), `?id=` on the list and the bulk delete, the `isMultipart`/`hasAttachments` filters,
 * dates with an offset, and the cursor left out on the last page.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { allIds, api, entry, newEndpoint } from '../helpers/history-fixtures.js';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app.stop();
});

const BOUNDARY = 'mbhostedboundary';

function multipart(withFile: boolean): Buffer {
  const field = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`;
  const file = withFile
    ? `--${BOUNDARY}\r\nContent-Disposition: form-data; name="document"; filename="a.txt"\r\n` +
      `Content-Type: text/plain\r\n\r\nabc\r\n`
    : '';
  return Buffer.from(`${field}${file}--${BOUNDARY}--\r\n`, 'utf8');
}

/** A multipart request with a file, one without, and a plain GET: returns their ids by name. */
async function seedKinds(ep: string): Promise<{ withFile: string; noFile: string; plain: string }> {
  const send = async (path: string, payload?: Buffer) => {
    const res = await app.inject({
      method: payload ? 'POST' : 'GET',
      url: `/e/${ep}${path}`,
      ...(payload
        ? { headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, payload }
        : {}),
    });
    assert.equal(res.statusCode, 200);
  };
  await send('/with-file', multipart(true));
  await send('/no-file', multipart(false));
  await send('/plain');
  await app.ctx.history.flush();
  const list = await api(app, 'GET', `/endpoints/${ep}/requests`);
  const byPath = (p: string) =>
    (list.body.data as { id: string; path: string }[]).find((e) => e.path === p)!.id;
  return { withFile: byPath('/with-file'), noFile: byPath('/no-file'), plain: byPath('/plain') };
}

void describe('entry fields', () => {
  void test('date, timeTaken, isMultipart and the HTTP version, as the hosted service names them', async () => {
    const ep = await newEndpoint(app, 'hosted');
    const ids = await seedKinds(ep);
    const one = await api(app, 'GET', `/endpoints/${ep}/requests/${ids.withFile}`);
    assert.equal(one.status, 200);
    const e = one.body;
    assert.match(e.date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(Number.isInteger(e.timeTaken) && e.timeTaken >= 0, String(e.timeTaken));
    assert.equal(e.isMultipart, true);
    assert.deepEqual(e.rule, { matched: false });
    assert.equal('ruleId' in e.rule, false);
    assert.deepEqual(e.files, [{ name: 'document', fileName: 'a.txt', contentType: 'text/plain', size: 3 }]);
    assert.equal(e.request.httpVersion, '1.1');
    assert.equal(e.response.httpVersion, '1.1');
    assert.equal(typeof e.request.body, 'string');

    const plain = await api(app, 'GET', `/endpoints/${ep}/requests/${ids.plain}`);
    assert.equal(plain.body.isMultipart, false);
    assert.equal(plain.body.request.body, null, 'a request without a body has body null');
    const noFile = await api(app, 'GET', `/endpoints/${ep}/requests/${ids.noFile}`);
    assert.equal(noFile.body.isMultipart, true, 'multipart without a file is still multipart');
    assert.deepEqual(noFile.body.files, []);
  });

  void test('rule.ruleId is there when a rule matched', async () => {
    const ep = await newEndpoint(app, 'hosted');
    const rule = await app.inject({
      method: 'POST',
      url: `/api/v2/endpoints/${ep}/rules`,
      headers: adminAuth,
      payload: {
        method: 'GET',
        conditions: [{ type: 'path', operator: 'equals', value: '/hit' }],
        action: { type: 'mock', status: 201, body: 'ok' },
      },
    });
    assert.equal(rule.statusCode, 201, rule.body);
    const ruleId = rule.json().id as string;
    assert.equal((await app.inject({ url: `/e/${ep}/hit` })).statusCode, 201);
    await app.ctx.history.flush();
    const list = await api(app, 'GET', `/endpoints/${ep}/requests`);
    assert.deepEqual(list.body.data[0].rule, { matched: true, ruleId });
  });

  void test('the cursor is there while hasMore, and left out on the last page', async () => {
    const ep = await newEndpoint(app, 'hosted');
    const t = Date.now();
    await app.ctx.store.insertHistory([0, 1, 2].map((i) => entry(ep, { createdAt: t - i * 1000 })));
    const first = await api(app, 'GET', `/endpoints/${ep}/requests?limit=2`);
    assert.equal(first.body.pagination.hasMore, true);
    assert.equal(typeof first.body.pagination.cursor, 'string');
    const last = await api(
      app,
      'GET',
      `/endpoints/${ep}/requests?limit=2&cursor=${first.body.pagination.cursor}`,
    );
    assert.equal(last.body.data.length, 1);
    assert.deepEqual(last.body.pagination, { hasMore: false, limit: 2 });
  });
});

void describe('?id= on the list and the bulk delete', () => {
  void test('GET …/requests?id=X answers that one entry alone, verbose and not wrapped', async () => {
    const ep = await newEndpoint(app, 'hosted');
    const ids = await seedKinds(ep);
    const res = await api(app, 'GET', `/endpoints/${ep}/requests?id=${ids.noFile}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data, undefined);
    assert.equal(res.body.id, ids.noFile);
    assert.equal(res.body.path, '/no-file');
    assert.equal(typeof res.body.request.headers, 'object');
    const withMode = await api(app, 'GET', `/endpoints/${ep}/requests?id=${ids.noFile}&mode=verbose`);
    assert.equal(withMode.body.id, ids.noFile);
  });

  void test('GET …/requests?id=unknown is 404; id with a filter is 400', async () => {
    const ep = await newEndpoint(app, 'hosted');
    const missing = await api(app, 'GET', `/endpoints/${ep}/requests?id=nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
    const mixed = await api(app, 'GET', `/endpoints/${ep}/requests?id=x&status=200`);
    assert.equal(mixed.status, 400);
    assert.equal(mixed.body.error.code, 'validation_error');
    assert.equal(mixed.body.error.details[0].path, '/status');
  });

  void test('DELETE …/requests?id=X deletes that entry alone and answers { id, deleted }', async () => {
    const ep = await newEndpoint(app, 'hosted');
    const ids = await seedKinds(ep);
    const res = await api(app, 'DELETE', `/endpoints/${ep}/requests?id=${ids.plain}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { id: ids.plain, deleted: true });
    assert.deepEqual((await allIds(app, ep)).sort(), [ids.withFile, ids.noFile].sort());
    const again = await api(app, 'DELETE', `/endpoints/${ep}/requests?id=${ids.plain}`);
    assert.equal(again.status, 404);
    const mixed = await api(app, 'DELETE', `/endpoints/${ep}/requests?id=${ids.noFile}&method=GET`);
    assert.equal(mixed.status, 400);
    assert.equal((await allIds(app, ep)).length, 2, 'a refused delete deletes nothing');
  });
});

void describe('filters', () => {
  void test('isMultipart and hasAttachments, on the list and on the delete', async () => {
    const ep = await newEndpoint(app, 'hosted');
    const ids = await seedKinds(ep);
    const sorted = (a: string[]) => [...a].sort();
    assert.deepEqual(sorted(await allIds(app, ep, 'isMultipart=true')), sorted([ids.withFile, ids.noFile]));
    assert.deepEqual(await allIds(app, ep, 'isMultipart=false'), [ids.plain]);
    assert.deepEqual(await allIds(app, ep, 'hasAttachments=true'), [ids.withFile]);
    assert.deepEqual(sorted(await allIds(app, ep, 'hasAttachments=false')), sorted([ids.noFile, ids.plain]));
    assert.deepEqual(await allIds(app, ep, 'isMultipart=true&hasAttachments=false'), [ids.noFile]);
    const bad = await api(app, 'GET', `/endpoints/${ep}/requests?isMultipart=maybe`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details[0].path, '/isMultipart');

    const del = await api(app, 'DELETE', `/endpoints/${ep}/requests?hasAttachments=true`);
    assert.deepEqual(del.body, { deleted: true, count: 1 });
    assert.deepEqual(sorted(await allIds(app, ep)), sorted([ids.noFile, ids.plain]));
  });

  void test('dateFrom and dateTo with an offset mean the same instant as in UTC', async () => {
    const ep = await newEndpoint(app, 'hosted');
    const at = Date.UTC(2024, 0, 15, 5, 0, 0); // 10:30 at +05:30
    await app.ctx.store.insertHistory([
      entry(ep, { id: 'before', createdAt: at - 60_000 }),
      entry(ep, { id: 'at', createdAt: at }),
      entry(ep, { id: 'after', createdAt: at + 60_000 }),
    ]);
    const from = encodeURIComponent('2024-01-15T10:30:00+05:30');
    assert.deepEqual(await allIds(app, ep, `dateFrom=${from}`), ['after', 'at']);
    const to = encodeURIComponent('2024-01-15T00:00:00-05:00'); // 05:00Z
    assert.deepEqual(await allIds(app, ep, `dateTo=${to}`), ['at', 'before']);
    const compact = encodeURIComponent('2024-01-15T10:31:00+0530');
    assert.deepEqual(await allIds(app, ep, `dateFrom=${compact}`), ['after']);
  });

  void test('the hosted behaviours grpc, wsdl and graphql are accepted and match nothing', async () => {
    const ep = await newEndpoint(app, 'hosted');
    await seedKinds(ep);
    for (const b of ['grpc', 'wsdl', 'graphql']) {
      const res = await api(app, 'GET', `/endpoints/${ep}/requests?behavior=${b}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, []);
    }
  });
});

void test('the download path of the hosted service serves the uploaded file', async () => {
  const ep = await newEndpoint(app, 'hosted');
  const ids = await seedKinds(ep);
  const res = await app.inject({
    url: `/api/v2/endpoints/${ep}/requests/${ids.withFile}/multipart/download?fieldName=document&component=Request`,
    headers: adminAuth,
  });
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, 'abc');
  assert.equal(res.headers['content-type'], 'text/plain');
});
