/**
 * Conformance: request history. Real requests reach an endpoint (one a rule answers, a JSON POST and a
 * file upload that none does); the list (summary, verbose, pages, every filter), one entry, its files,
 * recording a rule from it, and every form of delete are checked against the contract.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { conforms, conformsError, send } from './conformance.js';

let app: TestApp;
const H = '/api/v2/endpoints/shop/requests';
const ids: Record<'matched' | 'json' | 'upload', string> = { matched: '', json: '', upload: '' };

/** An ISO 8601 time in the +05:30 offset, as a script in India would write it. */
function inIndia(ms: number): string {
  return new Date(ms + 5.5 * 3600_000).toISOString().replace(/\.\d{3}Z$/, '+05:30');
}

async function hit(
  method: string,
  url: string,
  payload?: string | Buffer,
  headers: Record<string, string> = {},
) {
  const r = await app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(payload ? { payload } : {}),
  });
  assert.ok(r.statusCode < 500, r.body);
}

/** Sends the three requests again (after a delete) and returns their ids, newest first. */
async function record(): Promise<void> {
  await hit('GET', '/e/shop/users?id=1');
  await hit('POST', '/e/shop/orders', '{"order":"A7"}', { 'content-type': 'application/json' });
  const boundary = 'compatboundary';
  await hit(
    'POST',
    '/e/shop/upload',
    `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="me.txt"\r\nContent-Type: text/plain\r\n\r\nfile bytes\r\n--${boundary}--\r\n`,
    { 'content-type': `multipart/form-data; boundary=${boundary}` },
  );
  await app.ctx.history.flush();
  const list = await send(app, 'GET', `${H}?limit=3`);
  assert.equal(list.status, 200, list.text);
  const [upload, json, matched] = (list.body.data as { id: string }[]).map((e) => e.id);
  Object.assign(ids, { matched, json, upload });
}

before(async () => {
  app = await startApp();
  conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'shop' }));
  conforms(
    'POST /api/v2/endpoints/:ep/rules',
    await send(app, 'POST', '/api/v2/endpoints/shop/rules', {
      method: 'GET',
      conditions: [{ type: 'path', operator: 'equals', value: '/users' }],
      action: {
        type: 'mock',
        status: 200,
        headers: [{ key: 'content-type', value: 'application/json' }],
        body: '{"id":1}',
      },
    }),
  );
  await record();
});
after(async () => {
  await app.stop();
});

test('the list: summary entries, newest first, with behavior and rule', async () => {
  const list = conforms('GET /api/v2/endpoints/:ep/requests', await send(app, 'GET', H));
  assert.deepEqual(
    list.data.map((e: { id: string }) => e.id),
    [ids.upload, ids.json, ids.matched],
  );
  const [upload, json, matched] = list.data;
  assert.deepEqual([matched.behavior, matched.rule.matched], ['mock-rule', true]);
  assert.deepEqual([json.behavior, json.rule], ['default', { matched: false }]);
  assert.equal(json.path, '/orders');
  assert.equal(matched.path, '/users?id=1');
  assert.equal(upload.isMultipart, true);
  assert.deepEqual(upload.files, [
    { name: 'avatar', fileName: 'me.txt', contentType: 'text/plain', size: 10 },
  ]);
});

test('pages: a cursor while there are more, none on the last page', async () => {
  const first = conforms('GET /api/v2/endpoints/:ep/requests', await send(app, 'GET', `${H}?limit=2`));
  assert.equal(first.pagination.hasMore, true);
  const last = conforms(
    'GET /api/v2/endpoints/:ep/requests',
    await send(app, 'GET', `${H}?limit=2&cursor=${encodeURIComponent(first.pagination.cursor)}`),
  );
  assert.deepEqual(
    last.data.map((e: { id: string }) => e.id),
    [ids.matched],
  );
  assert.equal(last.pagination.hasMore, false);
});

test('mode=verbose adds the request and the response', async () => {
  const list = conforms(
    'GET /api/v2/endpoints/:ep/requests?mode=verbose',
    await send(app, 'GET', `${H}?mode=verbose`),
  );
  const byId = new Map(list.data.map((e: { id: string }) => [e.id, e]));
  const matched = byId.get(ids.matched) as { request: { body: unknown }; response: { body: string } };
  assert.equal(matched.request.body, null, 'a GET without a body has request.body null');
  assert.equal(matched.response.body, '{"id":1}');
  const json = byId.get(ids.json) as { request: { body: string } };
  assert.equal(json.request.body, '{"order":"A7"}');
});

test('one entry: ?id= (not wrapped) and …/requests/:id (verbose)', async () => {
  const byQuery = conforms(
    'GET /api/v2/endpoints/:ep/requests?id=:id',
    await send(app, 'GET', `${H}?id=${ids.json}`),
  );
  assert.equal(byQuery.id, ids.json);
  const one = conforms(
    'GET /api/v2/endpoints/:ep/requests/:id',
    await send(app, 'GET', `${H}/${ids.upload}`),
  );
  assert.equal(one.isMultipart, true);
  conformsError(await send(app, 'GET', `${H}/00000000-0000-4000-8000-000000000000`), 404, 'not_found');
  conformsError(await send(app, 'GET', `${H}?id=00000000-0000-4000-8000-000000000000`), 404, 'not_found');
});

test('an uploaded file downloads with its type and name, by both routes', async () => {
  for (const url of [
    `${H}/${ids.upload}/multipart/download?fieldName=avatar&component=Request`,
    `${H}/${ids.upload}/files/avatar`,
  ]) {
    const r = await send(app, 'GET', url);
    assert.equal(r.status, 200, r.text);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    assert.match(String(r.headers['content-disposition']), /filename="?me\.txt"?/);
    assert.equal(r.text, 'file bytes');
  }
});

test('a recorded exchange becomes a rule', async () => {
  const rule = conforms(
    'POST /api/v2/endpoints/:ep/requests/:id/rule',
    await send(app, 'POST', `${H}/${ids.matched}/rule`),
  );
  assert.deepEqual(rule.conditions, [{ type: 'path', operator: 'equals', value: '/users' }]);
});

test('every filter of the list is accepted and selects', async () => {
  const hour = Date.now() - 3600_000;
  const cases: [string, string[]][] = [
    [`dateFrom=${encodeURIComponent(inIndia(hour))}`, [ids.upload, ids.json, ids.matched]],
    [`dateTo=${encodeURIComponent(inIndia(hour))}`, []],
    [
      `dateFrom=${new Date(hour).toISOString()}&dateTo=${new Date(Date.now() + 60_000).toISOString()}`,
      [ids.upload, ids.json, ids.matched],
    ],
    ['dateRange=1h', [ids.upload, ids.json, ids.matched]],
    ['method=POST', [ids.upload, ids.json]],
    ['path=orders', [ids.json]],
    [`path=${encodeURIComponent('/^\\/users/')}`, [ids.matched]],
    ['status=200', [ids.upload, ids.json, ids.matched]],
    ['behavior=mock-rule', [ids.matched]],
    ['behavior=grpc', []],
    ['behavior=wsdl', []],
    ['behavior=graphql', []],
    ['ruleMatched=true', [ids.matched]],
    ['ruleMatched=false', [ids.upload, ids.json]],
    ['requestBody=A7', [ids.json]],
    ['responseBody=%7B%22id%22', [ids.matched]],
    ['isMultipart=true', [ids.upload]],
    ['isMultipart=false', [ids.json, ids.matched]],
    ['hasAttachments=true', [ids.upload]],
    ['method=POST&isMultipart=false', [ids.json]],
  ];
  // Every filter is tried and the failures reported together, so that one cannot hide another.
  const failures: string[] = [];
  for (const [query, expected] of cases) {
    try {
      const r = conforms('GET /api/v2/endpoints/:ep/requests', await send(app, 'GET', `${H}?${query}`));
      assert.deepEqual(
        r.data.map((e: { id: string }) => e.id),
        expected,
      );
    } catch (err) {
      failures.push(`?${query}: ${(err as Error).message.split('\n').slice(0, 3).join(' ')}`);
    }
  }
  assert.deepEqual(failures, []);
});

test('malformed filters and unknown parameters are 400 validation_error', async () => {
  for (const query of [
    'ruleMatched=maybe',
    'status=abc',
    'dateRange=5x',
    'dateFrom=yesterday',
    'stauts=500',
  ]) {
    conformsError(await send(app, 'GET', `${H}?${query}`), 400, 'validation_error');
    conformsError(await send(app, 'DELETE', `${H}?${query}`), 400, 'validation_error');
  }
});

test('deletes: one by ?id=, one by path, some by filters, then all', async () => {
  const byQuery = conforms(
    'DELETE /api/v2/endpoints/:ep/requests?id=:id',
    await send(app, 'DELETE', `${H}?id=${ids.json}`),
  );
  assert.equal(byQuery.id, ids.json);
  const byPath = conforms(
    'DELETE /api/v2/endpoints/:ep/requests/:id',
    await send(app, 'DELETE', `${H}/${ids.upload}`),
  );
  assert.equal(byPath.id, ids.upload);
  conformsError(await send(app, 'GET', `${H}/${ids.upload}/files/avatar`), 404, 'not_found');
  await record();
  const some = conforms(
    'DELETE /api/v2/endpoints/:ep/requests',
    await send(app, 'DELETE', `${H}?method=POST&ruleMatched=false&dateRange=1h`),
  );
  assert.equal(some.count, 2);
  const all = conforms('DELETE /api/v2/endpoints/:ep/requests', await send(app, 'DELETE', H));
  assert.equal(all.count, 2);
  const empty = conforms('GET /api/v2/endpoints/:ep/requests', await send(app, 'GET', H));
  assert.deepEqual(empty.data, []);
  const rules = conforms(
    'GET /api/v2/endpoints/:ep/rules',
    await send(app, 'GET', '/api/v2/endpoints/shop/rules'),
  );
  assert.equal(rules.data.length, 2, 'rules are untouched');
});
