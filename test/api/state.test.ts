/**
 * The state API (SPEC §4): every route, its shapes and its errors; types in any letter case; the
 * bounds as 400 validation_error; scoped keys; and state that outlives a restart.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint, scopedKey } from '../helpers/api-helpers.js';

let app: TestApp;
let n = 0;
before(async () => {
  app = await startApp({ stateMaxItems: 4, stateMaxList: 3, stateMaxValue: 64 });
});
after(async () => {
  await app.stop();
});

async function endpoint(): Promise<string> {
  const name = `st-${++n}`;
  await createEndpoint(app, name);
  return name;
}

test('PUT creates and updates ({ created, updated }); GET lists with pagination; types in any letter case', async () => {
  const ep = await endpoint();
  const put = await call(app, 'PUT', `/endpoints/${ep}/state`, {
    items: [
      { type: 'COUNTER', key: 'hits', value: 3 },
      { type: 'String', key: 'user:1', value: { name: 'Ada' } },
      { type: 'list', key: 'cart', value: ['a'] },
    ],
  });
  assert.equal(put.status, 200, put.text);
  assert.deepEqual(put.body, { created: 3, updated: 0 });
  const again = await call(app, 'PUT', `/endpoints/${ep}/state`, {
    items: [
      { type: 'counter', key: 'hits', value: 4 },
      { type: 'string', key: 'user:2', value: 'Bob' },
    ],
  });
  assert.deepEqual(again.body, { created: 1, updated: 1 });

  const all = await call(app, 'GET', `/endpoints/${ep}/state`);
  assert.equal(all.status, 200);
  assert.deepEqual(
    all.body.data.map((i: { type: string; key: string }) => `${i.type}:${i.key}`),
    ['counter:hits', 'list:cart', 'string:user:1', 'string:user:2'],
  );
  const hits = all.body.data[0];
  assert.equal(hits.value, 4);
  assert.equal(typeof hits.lastModified, 'number');
  assert.ok(Math.abs(hits.lastModified - Date.now()) < 60_000);
  assert.deepEqual(all.body.pagination, { total: 4, limit: 20, offset: 0, hasMore: false });

  const page = await call(app, 'GET', `/endpoints/${ep}/state?limit=2&offset=1`);
  assert.deepEqual(page.body.pagination, { total: 4, limit: 2, offset: 1, hasMore: true });
  assert.equal(page.body.data.length, 2);
  const last = await call(app, 'GET', `/endpoints/${ep}/state?limit=2&offset=2`);
  assert.equal(last.body.pagination.hasMore, false);

  const strings = await call(app, 'GET', `/endpoints/${ep}/state?type=STRING`);
  assert.deepEqual(
    strings.body.data.map((i: { type: string }) => i.type),
    ['string', 'string'],
  );
  const prefixed = await call(app, 'GET', `/endpoints/${ep}/state?keyPrefix=user%3A`);
  assert.equal(prefixed.body.pagination.total, 2);
});

test('GET and DELETE one item; an unknown item is 404 in our error shape', async () => {
  const ep = await endpoint();
  await call(app, 'PUT', `/endpoints/${ep}/state`, { items: [{ type: 'list', key: 'cart', value: [1, 2] }] });
  const one = await call(app, 'GET', `/endpoints/${ep}/state/LIST/cart`);
  assert.equal(one.status, 200);
  assert.deepEqual(
    { ...one.body, lastModified: 0 },
    { type: 'list', key: 'cart', value: [1, 2], lastModified: 0 },
  );
  const missing = await call(app, 'GET', `/endpoints/${ep}/state/counter/cart`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'not_found');
  const del = await call(app, 'DELETE', `/endpoints/${ep}/state/list/cart`);
  assert.deepEqual(del.body, { key: 'cart', deleted: true });
  const again = await call(app, 'DELETE', `/endpoints/${ep}/state/list/cart`);
  assert.equal(again.status, 404);
  assert.equal(again.body.error.code, 'not_found');
  const unknownEp = await call(app, 'GET', `/endpoints/nope-nope/state`);
  assert.equal(unknownEp.status, 404);
});

test('DELETE all ({ all: true }) or some ({ items }) answers { deleted, count }; a body without either is 400', async () => {
  const ep = await endpoint();
  await call(app, 'PUT', `/endpoints/${ep}/state`, {
    items: [
      { type: 'counter', key: 'a', value: 1 },
      { type: 'counter', key: 'b', value: 2 },
      { type: 'string', key: 'c', value: 'x' },
    ],
  });
  const some = await call(app, 'DELETE', `/endpoints/${ep}/state`, {
    items: [
      { type: 'Counter', key: 'a' },
      { type: 'list', key: 'a' },
    ],
  });
  assert.deepEqual(some.body, { deleted: true, count: 1 });
  const all = await call(app, 'DELETE', `/endpoints/${ep}/state`, { all: true });
  assert.deepEqual(all.body, { deleted: true, count: 2 });
  assert.equal((await call(app, 'GET', `/endpoints/${ep}/state`)).body.pagination.total, 0);
  for (const body of [{}, { all: false }, undefined]) {
    const r = await call(app, 'DELETE', `/endpoints/${ep}/state`, body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.error.code, 'validation_error');
  }
  // An empty list deletes nothing (issue 36: the hosted document accepts it).
  const none = await call(app, 'DELETE', `/endpoints/${ep}/state`, { items: [] });
  assert.deepEqual([none.status, none.body], [200, { deleted: true, count: 0 }]);
});

test('400 validation_error: an unknown type, unknown or malformed query parameters, wrong values', async () => {
  const ep = await endpoint();
  const cases: [string, string, unknown, string][] = [
    ['GET', `/endpoints/${ep}/state?type=map`, undefined, '/type'],
    ['GET', `/endpoints/${ep}/state?limit=101`, undefined, '/limit'],
    ['GET', `/endpoints/${ep}/state?offset=-1`, undefined, '/offset'],
    ['GET', `/endpoints/${ep}/state?limit=abc`, undefined, '/limit'],
    ['GET', `/endpoints/${ep}/state?sort=key`, undefined, ''],
    ['GET', `/endpoints/${ep}/state/map/k`, undefined, '/type'],
    ['DELETE', `/endpoints/${ep}/state/map/k`, undefined, '/type'],
    ['PUT', `/endpoints/${ep}/state`, { items: [{ type: 'map', key: 'k', value: 1 }] }, '/items/0/type'],
    [
      'PUT',
      `/endpoints/${ep}/state`,
      { items: [{ type: 'counter', key: 'k', value: 1.5 }] },
      '/items/0/value',
    ],
    [
      'PUT',
      `/endpoints/${ep}/state`,
      { items: [{ type: 'counter', key: 'k', value: '1' }] },
      '/items/0/value',
    ],
    ['PUT', `/endpoints/${ep}/state`, { items: [{ type: 'list', key: 'k', value: 'a' }] }, '/items/0/value'],
    ['PUT', `/endpoints/${ep}/state`, { items: [{ type: 'string', key: '', value: 'a' }] }, '/items/0/key'],
    [
      'PUT',
      `/endpoints/${ep}/state`,
      { items: [{ type: 'counter', key: 'k', value: -1 }] },
      '/items/0/value',
    ],
    ['PUT', `/endpoints/${ep}/state`, { items: [{ type: 'string', key: 'k' }], extra: 1 }, ''],
  ];
  for (const [method, url, body, path] of cases) {
    const r = await call(app, method, url, body);
    assert.equal(r.status, 400, `${method} ${url} ${JSON.stringify(body)}: ${r.text}`);
    assert.equal(r.body.error.code, 'validation_error');
    if (path !== '')
      assert.ok(
        r.body.error.details.some((d: { path: string }) => d.path.startsWith(path)),
        `${url}: ${r.text}`,
      );
  }
  assert.equal(
    (await call(app, 'GET', `/endpoints/${ep}/state`)).body.pagination.total,
    0,
    'nothing written',
  );
});

test('bounds: key length 256, value bytes (STATE_MAX_VALUE 64 here), list length (3), items (4): limit − 1, limit, limit + 1', async () => {
  const ep = await endpoint();
  const put = (items: unknown[]) => call(app, 'PUT', `/endpoints/${ep}/state`, { items });
  assert.equal((await put([{ type: 'string', key: 'k'.repeat(255), value: 1 }])).status, 200);
  assert.equal((await put([{ type: 'string', key: 'k'.repeat(256), value: 1 }])).status, 200);
  assert.equal((await put([{ type: 'string', key: 'k'.repeat(257), value: 1 }])).status, 400);
  // A JSON string of n characters is n + 2 bytes.
  assert.equal((await put([{ type: 'string', key: 'v', value: 'x'.repeat(61) }])).status, 200);
  assert.equal((await put([{ type: 'string', key: 'v', value: 'x'.repeat(62) }])).status, 200);
  const big = await put([{ type: 'string', key: 'v', value: 'x'.repeat(63) }]);
  assert.equal(big.status, 400);
  assert.match(big.body.error.details[0].message, /64 bytes/);
  assert.equal((await put([{ type: 'list', key: 'l', value: [1, 2] }])).status, 200);
  assert.equal((await put([{ type: 'list', key: 'l', value: [1, 2, 3] }])).status, 200);
  assert.equal((await put([{ type: 'list', key: 'l', value: [1, 2, 3, 4] }])).status, 400);
  // Four items allowed: k×255, k×256, v, l are there; a fifth is refused, an update is not.
  const fifth = await put([{ type: 'counter', key: 'five', value: 1 }]);
  assert.equal(fifth.status, 400);
  assert.match(fifth.body.error.details[0].message, /at most 4 state items/);
  assert.equal((await put([{ type: 'string', key: 'v', value: 'y' }])).status, 200);
  await call(app, 'DELETE', `/endpoints/${ep}/state/string/v`);
  assert.equal((await put([{ type: 'counter', key: 'five', value: 1 }])).status, 200);
});

test('a key scoped to another endpoint gets 403; the built-in echo endpoint takes no state', async () => {
  const ep = await endpoint();
  const other = await endpoint();
  const key = await scopedKey(app, other);
  for (const [method, url] of [
    ['GET', `/endpoints/${ep}/state`],
    ['GET', `/endpoints/${ep}/state/counter/a`],
    ['DELETE', `/endpoints/${ep}/state/counter/a`],
  ] as const) {
    const r = await call(app, method, url, undefined, key);
    assert.equal(r.status, 403, url);
  }
  const own = await call(
    app,
    'PUT',
    `/endpoints/${other}/state`,
    { items: [{ type: 'counter', key: 'a', value: 1 }] },
    key,
  );
  assert.equal(own.status, 200);
  const echo = await call(app, 'PUT', '/endpoints/echo/state', {
    items: [{ type: 'counter', key: 'a', value: 1 }],
  });
  assert.equal(echo.status, 403);
});

test('state survives a restart, and a templated rule keeps counting from where it was', async () => {
  const first = await startApp({}, { keepDir: true });
  try {
    await createEndpoint(first, 'kept');
    const rule = await call(first, 'POST', '/endpoints/kept/rules', {
      method: 'GET',
      conditions: [{ type: 'path', operator: 'equals', value: '/n' }],
      action: { type: 'mock', status: 200, body: `{{step-counter 'inc' 'n'}}`, templated: true },
    });
    assert.equal(rule.status, 201);
    await first.inject({ url: '/e/kept/n' });
    await call(first, 'PUT', '/endpoints/kept/state', {
      items: [{ type: 'list', key: 'l', value: [{ b: 1, a: 2 }] }],
    });
  } finally {
    await first.stop();
  }
  const second = await startApp({ dataDir: first.dataDir });
  try {
    assert.equal((await second.inject({ url: '/e/kept/n' })).body, '2');
    const list = await call(second, 'GET', '/endpoints/kept/state/list/l');
    assert.equal(JSON.stringify(list.body.value), '[{"b":1,"a":2}]');
  } finally {
    await second.stop();
    const { rmSync } = await import('node:fs');
    rmSync(first.dataDir, { recursive: true, force: true });
  }
});
