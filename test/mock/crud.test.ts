/**
 * The `crud` rule action (issue 13 part 3): every route of a collection and each of its errors, ids
 * (generated, explicit, numeric, a custom idField), two creations of one id at once, the caps,
 * collections per template value, what the history records, `crud.autoDelete`, and items surviving
 * a restart of the server on the same DATA_DIR.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteOldCrudItemsOnce } from '../../src/background.js';
import { collectionLocator, CRUD_LIST_MAX, type Condition } from '../../src/mock/index.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertDetail, call, createEndpoint } from '../helpers/api-helpers.js';

const DAY = 86_400_000;
let clock = Date.UTC(2026, 0, 10, 12);
let app: TestApp;
let n = 0;
before(async () => {
  app = await startApp({ crudMaxItems: 5, crudMaxItemBytes: 300 }, { now: () => clock });
});
after(async () => {
  await app.stop();
});

const crudRule = (condition: Record<string, string>, idField?: string) => ({
  conditions: [{ type: 'path', ...condition }],
  action: idField === undefined ? { type: 'crud' } : { type: 'crud', idField },
});

async function endpoint(rules: unknown[], on: TestApp = app): Promise<string> {
  const name = `crud-${++n}`;
  await createEndpoint(on, name);
  for (const r of rules) {
    const res = await call(on, 'POST', `/endpoints/${name}/rules`, r);
    assert.equal(res.status, 201, res.text);
  }
  return name;
}

interface Sent {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers
  body: any;
  headers: Record<string, unknown>;
}

async function send(
  ep: string,
  method: string,
  url: string,
  payload?: unknown,
  on: TestApp = app,
  headers: Record<string, string> = {},
): Promise<Sent> {
  const r = await on.inject({
    method: method as 'GET',
    url: `/e/${ep}${url}`,
    headers:
      payload === undefined || typeof payload === 'string'
        ? headers
        : { 'content-type': 'application/json', ...headers },
    ...(payload !== undefined
      ? { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }
      : {}),
  });
  let body: unknown;
  try {
    body = r.body === '' ? undefined : JSON.parse(r.body);
  } catch {
    body = r.body;
  }
  return { status: r.statusCode, body, headers: r.headers };
}

function assertCode(r: Sent, status: number, code: string): void {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.error.code, code, JSON.stringify(r.body));
  assert.equal(typeof r.body.error.message, 'string');
  assert.match(String(r.headers['content-type']), /^application\/json/);
}

test('the collection path comes from the first equals, starts_with or template path condition', () => {
  const at = (c: Partial<Condition>, path: string) =>
    collectionLocator([{ type: 'path', ...c } as Condition])!(path);
  assert.deepEqual(at({ operator: 'starts_with', value: '/users' }, '/users'), { collection: '/users' });
  assert.deepEqual(at({ operator: 'starts_with', value: '/users/' }, '/users/'), { collection: '/users' });
  assert.deepEqual(at({ operator: 'starts_with', value: '/users' }, '/users/a%20b'), {
    collection: '/users',
    id: 'a b',
  });
  assert.deepEqual(at({ operator: 'starts_with', value: '/users' }, '/users/7/'), {
    collection: '/users',
    id: '7',
  });
  assert.equal(at({ operator: 'starts_with', value: '/users' }, '/users/7/orders'), undefined);
  assert.equal(at({ operator: 'starts_with', value: '/users' }, '/usersX'), undefined);
  assert.deepEqual(at({ operator: 'starts_with', value: '/' }, '/'), { collection: '/' });
  assert.deepEqual(at({ operator: 'starts_with', value: '/' }, '/9'), { collection: '/', id: '9' });
  assert.deepEqual(at({ operator: 'equals', value: '/users' }, '/users'), { collection: '/users' });
  assert.deepEqual(at({ operator: 'template', value: '/shops/:shop/items/:id' }, '/shops/s1/items/4'), {
    collection: '/shops/s1/items',
    id: '4',
  });
  assert.deepEqual(at({ operator: 'template', value: '/shops/:shop/items' }, '/shops/s1/items'), {
    collection: '/shops/s1/items',
  });
  assert.deepEqual(at({ operator: 'template', value: '/:id' }, '/5'), { collection: '/', id: '5' });
  // The first such condition decides; others only narrow what matches.
  assert.deepEqual(
    collectionLocator([
      { type: 'path', operator: 'contains', value: 'x' },
      { type: 'path', operator: 'starts_with', value: '/a' },
      { type: 'path', operator: 'starts_with', value: '/a/b' },
    ] as Condition[])!('/a/b'),
    { collection: '/a', id: 'b' },
  );
  assert.equal(collectionLocator([{ type: 'path', operator: 'regex', value: '^/x' }]), undefined);
});

test('a crud rule without a path condition naming its collection is refused when saved (400)', async () => {
  await createEndpoint(app, 'crud-refused');
  const r = await call(app, 'POST', '/endpoints/crud-refused/rules', {
    conditions: [{ type: 'path', operator: 'contains', value: 'users' }],
    action: { type: 'crud' },
  });
  assertDetail(r, '/conditions');
});

test('every route: create (generated and explicit ids), list newest first, get, replace, merge, delete', async () => {
  const ep = await endpoint([crudRule({ operator: 'starts_with', value: '/users' })]);
  let r = await send(ep, 'GET', '/users');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, []);
  assert.equal(r.headers['x-total-count'], '0');

  r = await send(ep, 'POST', '/users', { name: 'Ada' });
  assert.equal(r.status, 201);
  assert.match(r.body.id, /^[0-9a-f-]{36}$/, 'a generated id');
  assert.deepEqual(Object.keys(r.body), ['id', 'name'], 'the id comes first');
  const ada = r.body.id as string;
  r = await send(ep, 'POST', '/users/', { id: 'bob', name: 'Bob' });
  assert.equal(r.status, 201);
  assert.deepEqual(r.body, { id: 'bob', name: 'Bob' });
  r = await send(ep, 'POST', '/users', { id: 7, name: 'Seven', tags: ['a'] });
  assert.deepEqual(r.body, { id: 7, name: 'Seven', tags: ['a'] }, 'a numeric id stays a number');

  r = await send(ep, 'GET', '/users');
  assert.deepEqual(
    r.body.map((u: { name: string }) => u.name),
    ['Seven', 'Bob', 'Ada'],
  );
  assert.equal(r.headers['x-total-count'], '3');
  r = await send(ep, 'GET', '/users?limit=1&offset=1');
  assert.deepEqual(r.body, [{ id: 'bob', name: 'Bob' }]);
  assert.equal(r.headers['x-total-count'], '3');
  assert.deepEqual((await send(ep, 'GET', '/users?offset=3')).body, []);

  assert.deepEqual((await send(ep, 'GET', `/users/${ada}`)).body, { id: ada, name: 'Ada' });
  assert.deepEqual((await send(ep, 'GET', '/users/7')).body.name, 'Seven');
  assert.equal((await send(ep, 'HEAD', '/users/7')).status, 200);

  r = await send(ep, 'PUT', '/users/7', { name: 'Sieben' });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { id: 7, name: 'Sieben' }, 'PUT replaces: tags are gone, the id kept');
  r = await send(ep, 'PUT', '/users/bob', { id: 'bob', name: 'Robert', age: 40 });
  assert.deepEqual(r.body, { id: 'bob', name: 'Robert', age: 40 });
  r = await send(ep, 'PATCH', '/users/bob', { age: 41, city: 'Oslo' });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { id: 'bob', name: 'Robert', age: 41, city: 'Oslo' }, 'PATCH merges');
  assert.deepEqual((await send(ep, 'GET', '/users/bob')).body, r.body);

  r = await send(ep, 'DELETE', '/users/bob');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { id: 'bob', name: 'Robert', age: 41, city: 'Oslo' });
  assertCode(await send(ep, 'GET', '/users/bob'), 404, 'not_found');
  assert.equal((await send(ep, 'GET', '/users')).headers['x-total-count'], '2');
});

test('errors: unknown ids 404, bodies that are not JSON objects 400, ids that disagree 400, wrong methods 405', async () => {
  const ep = await endpoint([crudRule({ operator: 'starts_with', value: '/things' })]);
  await send(ep, 'POST', '/things', { id: 'a' });
  for (const m of ['GET', 'PUT', 'PATCH', 'DELETE']) {
    const r = await send(ep, m, '/things/nope', m === 'PUT' || m === 'PATCH' ? { x: 1 } : undefined);
    assertCode(r, 404, 'not_found');
    assert.match(r.body.error.message, /nope/);
  }
  for (const bad of [[1, 2], '"text"', 'not json', '', 'null']) {
    for (const [m, url] of [
      ['POST', '/things'],
      ['PUT', '/things/a'],
      ['PATCH', '/things/a'],
    ] as const) {
      const r = await send(ep, m, url, typeof bad === 'string' ? bad : bad, app, {
        'content-type': 'application/json',
      });
      assertCode(r, 400, 'validation_error');
    }
  }
  // JSON is read whatever the Content-Type says (curl -d sends form-urlencoded).
  const form = await send(ep, 'POST', '/things', '{"id":"f"}', app, {
    'content-type': 'application/x-www-form-urlencoded',
  });
  assert.equal(form.status, 201);
  assertDetail({ ...(await send(ep, 'PUT', '/things/a', { id: 'b' })), text: '' }, '/id', '"b"');
  assertCode(await send(ep, 'PATCH', '/things/a', { id: 'b' }), 400, 'validation_error');
  assert.equal(
    (await send(ep, 'PATCH', '/things/a', { id: 'a', v: 1 })).status,
    200,
    'the same id may be repeated',
  );
  for (const id of [true, {}, '', 'x'.repeat(201)])
    assertCode(await send(ep, 'POST', '/things', { id }), 400, 'validation_error');
  assert.equal((await send(ep, 'POST', '/things', { id: 'x'.repeat(200) })).status, 201);
  assertCode(await send(ep, 'POST', '/things', { id: 'a' }), 409, 'conflict');

  let r = await send(ep, 'PUT', '/things', { x: 1 });
  assertCode(r, 405, 'method_not_allowed');
  assert.equal(r.headers['allow'], 'GET, HEAD, POST');
  r = await send(ep, 'POST', '/things/a', { x: 1 });
  assertCode(r, 405, 'method_not_allowed');
  assert.equal(r.headers['allow'], 'GET, HEAD, PUT, PATCH, DELETE');
  // Matched by the rule, but no route of the collection.
  assertCode(await send(ep, 'GET', '/things/a/parts'), 404, 'not_found');
  assertCode(await send(ep, 'GET', '/thingsX'), 404, 'not_found');
});

test(`list limit: 1 to ${CRUD_LIST_MAX} (default ${CRUD_LIST_MAX}), offset >= 0; anything else is 400`, async () => {
  const ep = await endpoint([crudRule({ operator: 'starts_with', value: '/l' })]);
  for (let i = 0; i < 3; i++) await send(ep, 'POST', '/l', { i });
  assert.equal((await send(ep, 'GET', '/l')).body.length, 3);
  for (const limit of [1, CRUD_LIST_MAX - 1, CRUD_LIST_MAX])
    assert.equal((await send(ep, 'GET', `/l?limit=${limit}`)).status, 200);
  for (const q of [
    `limit=${CRUD_LIST_MAX + 1}`,
    'limit=0',
    'limit=abc',
    'limit=1&limit=2',
    'offset=-1',
    'offset=x',
  ]) {
    const r = await send(ep, 'GET', `/l?${q}`);
    assertCode(r, 400, 'validation_error');
    assert.match(r.body.error.details[0].path, /^\/(limit|offset)$/);
  }
});

test('two creations of one explicit id at once: one 201, the other 409, one item stored', async () => {
  const ep = await endpoint([crudRule({ operator: 'starts_with', value: '/race' })]);
  const results = await Promise.all([1, 2, 3].map((v) => send(ep, 'POST', '/race', { id: 'same', v })));
  assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409]);
  const list = await send(ep, 'GET', '/race');
  assert.equal(list.body.length, 1);
  assert.equal(list.body[0].v, results.find((r) => r.status === 201)!.body.v);
});

test('caps: CRUD_MAX_ITEMS per collection (409 past it) and CRUD_MAX_ITEM_BYTES per item (413 past it)', async () => {
  const ep = await endpoint([crudRule({ operator: 'starts_with', value: '/c' })]);
  for (let i = 1; i <= 4; i++) assert.equal((await send(ep, 'POST', '/c', { id: `i${i}` })).status, 201);
  assert.equal((await send(ep, 'POST', '/c', { id: 'i5' })).status, 201, 'the fifth (the cap) fits');
  const r = await send(ep, 'POST', '/c', { id: 'i6' });
  assertCode(r, 409, 'conflict');
  assert.match(r.body.error.message, /maximum of 5 items/);
  // 300 bytes of JSON: `{"id":"i1","p":"…"}` is 18 bytes and the padding.
  const padded = (bytes: number) => ({ p: 'x'.repeat(bytes - 18) });
  assert.equal((await send(ep, 'PUT', '/c/i1', padded(299))).status, 200);
  assert.equal((await send(ep, 'PUT', '/c/i1', padded(300))).status, 200);
  assertCode(await send(ep, 'PUT', '/c/i1', padded(301)), 413, 'payload_too_large');
  assertCode(await send(ep, 'PATCH', '/c/i2', padded(301)), 413, 'payload_too_large');
  const other = await endpoint([crudRule({ operator: 'starts_with', value: '/c' })]);
  assertCode(await send(other, 'POST', '/c', { id: 'i1', ...padded(301) }), 413, 'payload_too_large');
  assert.equal((await send(other, 'POST', '/c', { id: 'i1', ...padded(300) })).status, 201);
});

test('a template ending in a parameter: one collection per value of the others; a custom idField', async () => {
  const ep = await endpoint([
    crudRule({ operator: 'template', value: '/shops/:shop/items' }, 'sku'),
    crudRule({ operator: 'template', value: '/shops/:shop/items/:sku' }, 'sku'),
  ]);
  assert.equal((await send(ep, 'POST', '/shops/a/items', { sku: 'x1', n: 1 })).status, 201);
  assert.equal((await send(ep, 'POST', '/shops/b/items', { sku: 'x1', n: 2 })).status, 201);
  assert.deepEqual((await send(ep, 'GET', '/shops/a/items/x1')).body, { sku: 'x1', n: 1 });
  assert.deepEqual((await send(ep, 'GET', '/shops/b/items')).body, [{ sku: 'x1', n: 2 }]);
  const generated = await send(ep, 'POST', '/shops/a/items', { n: 3 });
  assert.equal(typeof generated.body.sku, 'string');
  assert.equal(generated.body.id, undefined);
});

test('recorded with behavior crud and the rule id; an equals rule serves list and create only', async () => {
  const ep = await endpoint([crudRule({ operator: 'equals', value: '/only' })]);
  const ruleId = (await call(app, 'GET', `/endpoints/${ep}/rules`)).body.data[0].id as string;
  assert.equal((await send(ep, 'POST', '/only', { id: 1 })).status, 201);
  await app.ctx.history.flush();
  const entry = (await app.ctx.store.listHistory(ep, {}, 1)).data[0]!;
  assert.equal(entry.behavior, 'crud');
  assert.equal(entry.ruleId, ruleId);
  assert.equal(entry.status, 201);
  const listed = await call(app, 'GET', `/endpoints/${ep}/requests?behavior=crud`);
  assert.equal(listed.body.data.length, 1);
  // /only/1 is not matched by an equals rule: the default answer.
  assert.equal((await send(ep, 'GET', '/only/1')).status, 200);
  await app.ctx.history.flush();
  assert.equal((await app.ctx.store.listHistory(ep, {}, 1)).data[0]!.behavior, 'default');
});

test('crud.autoDelete: items older than the history retention go, only where it is on', async () => {
  const keep = await endpoint([crudRule({ operator: 'starts_with', value: '/k' })]);
  const drop = await endpoint([crudRule({ operator: 'starts_with', value: '/k' })]);
  const r = await call(app, 'PATCH', `/endpoints/${drop}/settings`, { crud: { autoDelete: true } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.crud, { autoDelete: true });
  const start = clock;
  try {
    for (const ep of [keep, drop]) await send(ep, 'POST', '/k', { id: 'old' });
    clock = start + 9 * DAY;
    for (const ep of [keep, drop]) await send(ep, 'POST', '/k', { id: 'new' });
    clock = start + 10 * DAY; // the default retention is 10 days: `old` is exactly that old, kept
    await deleteOldCrudItemsOnce(app.ctx);
    assert.equal((await send(drop, 'GET', '/k')).body.length, 2);
    clock = start + 10 * DAY + 1;
    assert.ok((await deleteOldCrudItemsOnce(app.ctx)) >= 1);
    assert.deepEqual((await send(drop, 'GET', '/k')).body, [{ id: 'new' }]);
    assert.equal((await send(keep, 'GET', '/k')).body.length, 2, 'autoDelete off: nothing goes');
  } finally {
    clock = start;
  }
});

test('items survive a restart: the server stopped and started again on the same DATA_DIR', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mb-crud-restart-'));
  try {
    let first: TestApp | undefined = await startApp({ dataDir });
    let ep: string;
    try {
      ep = await endpoint([crudRule({ operator: 'starts_with', value: '/notes' })], first);
      await send(ep, 'POST', '/notes', { id: 'n1', text: 'kept' }, first);
      await send(ep, 'POST', '/notes', { id: 'n2', text: 'also kept' }, first);
      await send(ep, 'PATCH', '/notes/n1', { done: true }, first);
    } finally {
      await first.stop();
      first = undefined;
    }
    const second = await startApp({ dataDir });
    try {
      const list = await send(ep, 'GET', '/notes', undefined, second);
      assert.deepEqual(list.body, [
        { id: 'n2', text: 'also kept' },
        { id: 'n1', text: 'kept', done: true },
      ]);
      assert.equal((await send(ep, 'DELETE', '/notes/n2', undefined, second)).status, 200);
      assertCode(await send(ep, 'POST', '/notes', { id: 'n1' }, second), 409, 'conflict');
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
