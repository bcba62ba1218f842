/**
 * POST …/import/har: entries become rules that answer the same requests; preview stores nothing; what
 * is skipped says why (failed requests, methods, binary bodies, too many conditions, duplicates); the
 * chosen request headers become conditions; HAR_IMPORT_LIMIT, HAR_MAX_ENTRIES, MAX_ENDPOINT_RULES (all
 * or none) and the access checks.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HAR_MAX_ENTRIES } from '../../src/api/har-import.js';
import { MAX_ENDPOINT_RULES } from '../../src/mock/index.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint, scopedKey } from '../helpers/api-helpers.js';
import { endpointRequest } from '../helpers/endpoint.js';

/** HAR_IMPORT_LIMIT of the shared app. */
const LIMIT = 8192;
let app: TestApp;
let n = 0;
before(async () => {
  app = await startApp({ harImportLimit: LIMIT });
});
after(async () => {
  await app.stop();
});

async function endpoint(): Promise<string> {
  const name = `har-in-${++n}`;
  await createEndpoint(app, name);
  return name;
}

type Pair = { name: string; value: string };
function harEntry(
  method: string,
  url: string,
  status: number,
  body: string,
  opts: { headers?: Pair[]; requestHeaders?: Pair[]; encoding?: string } = {},
) {
  return {
    startedDateTime: '2026-05-15T02:46:30.123Z',
    time: 1,
    request: {
      method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: opts.requestHeaders ?? [],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: opts.headers ?? [],
      content: {
        size: body.length,
        mimeType: 'application/json',
        text: body,
        ...(opts.encoding ? { encoding: opts.encoding } : {}),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  };
}
const har = (entries: unknown[]) => ({
  log: { version: '1.2', creator: { name: 't', version: '1' }, entries },
});
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe]).toString('base64');

/** Entry 0..8: kept 0, 1, 2; skipped 3 (status 0), 4 (CONNECT), 5 (binary), 6 (duplicate of 0), 7 (6 conditions), 8 (not an entry). */
const SAMPLE = har([
  harEntry('GET', 'https://api.example.com/users?page=2', 200, '[{"id":1}]', {
    headers: [
      { name: 'Content-Type', value: 'application/json' },
      { name: 'Content-Length', value: '10' },
      { name: 'Connection', value: 'keep-alive, x-hop' },
      { name: 'X-Hop', value: 'gone' },
      { name: 'Transfer-Encoding', value: 'chunked' },
      { name: 'Content-Encoding', value: 'gzip' },
      { name: 'Date', value: 'Fri, 15 May 2026 02:46:30 GMT' },
      { name: ':status', value: '200' },
      { name: 'X-Kept', value: 'yes' },
    ],
  }),
  harEntry('post', 'https://api.example.com/users', 201, '{"id":2}', {
    headers: [
      { name: 'set-cookie', value: 'a=1' },
      { name: 'set-cookie', value: 'b=2' },
    ],
  }),
  harEntry('GET', 'https://api.example.com/greeting', 200, Buffer.from('héllo').toString('base64'), {
    encoding: 'base64',
  }),
  harEntry('GET', 'https://api.example.com/failed', 0, ''),
  harEntry('CONNECT', 'https://api.example.com:443/', 200, ''),
  harEntry('GET', 'https://api.example.com/logo.png', 200, PNG, { encoding: 'base64' }),
  harEntry('GET', 'https://api.example.com/users?page=2', 500, 'later'),
  harEntry('GET', 'https://api.example.com/search?a=1&b=2&c=3&d=4&e=5', 200, '[]'),
  'not an entry',
]);

void describe('import', () => {
  void test('preview lists the rules and the skipped entries with reasons, and stores nothing', async () => {
    const ep = await endpoint();
    const r = await call(app, 'POST', `/endpoints/${ep}/import/har?preview=true`, SAMPLE);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.created, 0);
    assert.equal(r.body.rules.length, 3);
    assert.equal(r.body.rules[0].id, undefined);
    assert.deepEqual(
      r.body.skipped.map((s: { index: number }) => s.index),
      [3, 4, 5, 6, 7, 8],
    );
    const reasons = r.body.skipped.map((s: { reason: string }) => s.reason);
    assert.match(reasons[0], /status 0/);
    assert.match(reasons[1], /method CONNECT/);
    assert.match(reasons[2], /binary response body \(10 bytes, not UTF-8\)/);
    assert.match(reasons[3], /duplicate of entry 0/);
    assert.match(reasons[4], /needs 6 conditions.*at most 5/);
    assert.match(reasons[5], /not a HAR entry/);
    const rules = await call(app, 'GET', `/endpoints/${ep}/rules`);
    assert.deepEqual(rules.body.data, []);
  });

  void test('the rules answer the same requests with the same status, headers and bodies', async () => {
    const ep = await endpoint();
    const r = await call(app, 'POST', `/endpoints/${ep}/import/har`, SAMPLE);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.created, 3);
    assert.equal(typeof r.body.rules[0].id, 'string');
    const [users] = r.body.rules;
    assert.equal(users.method, 'GET');
    assert.deepEqual(users.conditions, [
      { type: 'path', operator: 'equals', value: '/users' },
      { type: 'query_param', key: 'page', operator: 'equals', value: '2' },
    ]);
    assert.deepEqual(
      users.action.headers.map((h: { key: string }) => h.key),
      ['content-type', 'x-kept'],
    );

    const list = await endpointRequest(app, ep, '/users?page=2');
    assert.equal(list.statusCode, 200);
    assert.equal(list.body, '[{"id":1}]');
    assert.equal(list.headers['x-kept'], 'yes');
    assert.equal(list.headers['x-hop'], undefined);
    assert.equal(list.headers['content-encoding'], undefined);
    // Another page is not the recorded request: the fallback answers it.
    assert.notEqual((await endpointRequest(app, ep, '/users?page=3')).body, '[{"id":1}]');
    const created = await endpointRequest(app, ep, '/users', { method: 'POST', payload: '{}' });
    assert.equal(created.statusCode, 201);
    assert.equal(created.body, '{"id":2}');
    assert.deepEqual(created.headers['set-cookie'], ['a=1', 'b=2']);
    const greeting = await endpointRequest(app, ep, '/greeting');
    assert.equal(greeting.body, 'héllo');
  });

  void test('importing again skips every entry as a duplicate of an existing rule', async () => {
    const ep = await endpoint();
    assert.equal((await call(app, 'POST', `/endpoints/${ep}/import/har`, SAMPLE)).status, 201);
    const again = await call(app, 'POST', `/endpoints/${ep}/import/har`, SAMPLE);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.created, 0);
    assert.deepEqual(again.body.rules, []);
    for (const i of [0, 1, 2])
      assert.match(
        again.body.skipped.find((s: { index: number }) => s.index === i).reason,
        /duplicate of an existing rule/,
      );
    assert.equal((await call(app, 'GET', `/endpoints/${ep}/rules`)).body.data.length, 3);
  });

  void test('headers= makes the named request headers conditions (any case), when the entry has them', async () => {
    const ep = await endpoint();
    const doc = har([
      harEntry('GET', 'https://x.test/me', 200, 'acme', {
        requestHeaders: [
          { name: 'X-Tenant', value: 'acme' },
          { name: 'Accept', value: '*/*' },
        ],
      }),
      harEntry('GET', 'https://x.test/other', 200, 'other'),
    ]);
    const r = await call(app, 'POST', `/endpoints/${ep}/import/har?headers=x-tenant,Missing`, doc);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.rules[0].conditions[1], {
      type: 'header',
      key: 'x-tenant',
      operator: 'equals',
      value: 'acme',
    });
    assert.equal(r.body.rules[1].conditions.length, 1);
    assert.equal((await endpointRequest(app, ep, '/me', { headers: { 'x-tenant': 'acme' } })).body, 'acme');
    assert.notEqual(
      (await endpointRequest(app, ep, '/me', { headers: { 'x-tenant': 'other' } })).body,
      'acme',
    );
  });
});

void describe('refusals', () => {
  void test('a body that is not a HAR, bad options and unknown parameters are 400 with details', async () => {
    const ep = await endpoint();
    const noLog = await call(app, 'POST', `/endpoints/${ep}/import/har`, { entries: [] });
    assert.equal(noLog.status, 400);
    assert.equal(noLog.body.error.code, 'validation_error');
    assert.ok(noLog.body.error.details.length > 0);
    const notArray = await call(app, 'POST', `/endpoints/${ep}/import/har`, { log: { entries: {} } });
    assert.equal(notArray.status, 400);
    const badHeader = await call(app, 'POST', `/endpoints/${ep}/import/har?headers=a%20b`, har([]));
    assert.equal(badHeader.status, 400);
    assert.equal(badHeader.body.error.details[0].path, '/headers');
    const unknown = await call(app, 'POST', `/endpoints/${ep}/import/har?dry=1`, har([]));
    assert.equal(unknown.status, 400);
    const notJson = await app.inject({
      method: 'POST',
      url: `/api/v2/endpoints/${ep}/import/har`,
      headers: {
        authorization: `Bearer mb_test_admin_key_0123456789abcdefghijklmnopqrstuv`,
        'content-type': 'application/json',
      },
      payload: '{"log":',
    });
    assert.equal(notJson.statusCode, 400);
  });

  void test('the echo endpoint (403), an unknown endpoint (404) and a key scoped elsewhere (403)', async () => {
    assert.equal((await call(app, 'POST', `/endpoints/echo/import/har`, har([]))).status, 403);
    assert.equal((await call(app, 'POST', `/endpoints/nope-${n}/import/har`, har([]))).status, 404);
    const mine = await endpoint();
    const other = await endpoint();
    const key = await scopedKey(app, other);
    assert.equal((await call(app, 'POST', `/endpoints/${mine}/import/har`, har([]), key)).status, 403);
    assert.equal((await call(app, 'POST', `/endpoints/${other}/import/har`, har([]), key)).status, 201);
  });

  void test('HAR_IMPORT_LIMIT (8192 here): limit − 1 and limit bytes are read, limit + 1 is 413', async () => {
    const ep = await endpoint();
    const sized = (bytes: number) => {
      const base = JSON.stringify({ log: { comment: '', entries: [] } });
      return JSON.stringify({ log: { comment: ' '.repeat(bytes - base.length), entries: [] } });
    };
    for (const [bytes, status] of [
      [LIMIT - 1, 201],
      [LIMIT, 201],
      [LIMIT + 1, 413],
    ] as const) {
      const body = sized(bytes);
      assert.equal(Buffer.byteLength(body), bytes);
      const r = await app.inject({
        method: 'POST',
        url: `/api/v2/endpoints/${ep}/import/har`,
        headers: {
          authorization: `Bearer mb_test_admin_key_0123456789abcdefghijklmnopqrstuv`,
          'content-type': 'application/json',
        },
        payload: body,
      });
      assert.equal(r.statusCode, status, `${bytes} bytes: ${r.body}`);
      if (status === 413) assert.equal(r.json().error.code, 'payload_too_large');
    }
  });

  void test('HAR_MAX_ENTRIES: that many entries are read, one more is a 400', async () => {
    const big = await startApp();
    try {
      await createEndpoint(big, 'many');
      const at = await call(
        big,
        'POST',
        '/endpoints/many/import/har?preview=true',
        har(Array(HAR_MAX_ENTRIES).fill({})),
      );
      assert.equal(at.status, 200, at.text.slice(0, 200));
      assert.equal(at.body.skipped.length, HAR_MAX_ENTRIES);
      const over = await call(
        big,
        'POST',
        '/endpoints/many/import/har?preview=true',
        har(Array(HAR_MAX_ENTRIES + 1).fill({})),
      );
      assert.equal(over.status, 400);
      assert.equal(over.body.error.details[0].path, '/log/entries');
    } finally {
      await big.stop();
    }
  });

  void test('MAX_ENDPOINT_RULES: up to the bound is appended; past it nothing is (all or none)', async () => {
    const big = await startApp();
    try {
      await createEndpoint(big, 'full');
      const entries = (from: number, count: number) =>
        Array.from({ length: count }, (_, i) => harEntry('GET', `https://x.test/r/${from + i}`, 200, 'x'));
      const first = await call(
        big,
        'POST',
        '/endpoints/full/import/har',
        har(entries(0, MAX_ENDPOINT_RULES - 1)),
      );
      assert.equal(first.status, 201, first.text.slice(0, 300));
      assert.equal(first.body.created, MAX_ENDPOINT_RULES - 1);
      const over = await call(big, 'POST', '/endpoints/full/import/har', har(entries(5000, 2)));
      assert.equal(over.status, 400);
      assert.match(over.body.error.message, /at most 2000 rules/);
      const count = async (): Promise<number> =>
        ((await call(big, 'GET', '/endpoints/full/rules')).body.data as unknown[]).length;
      assert.equal(await count(), MAX_ENDPOINT_RULES - 1);
      const last = await call(big, 'POST', '/endpoints/full/import/har', har(entries(6000, 1)));
      assert.equal(last.status, 201);
      assert.equal(await count(), MAX_ENDPOINT_RULES);
    } finally {
      await big.stop();
    }
  });
});
