import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertDetail, call, createEndpoint, type Res } from '../helpers/api-helpers.js';

let app: TestApp;
before(async () => {
  app = await startApp();
  await createEndpoint(app, 'valid');
});
after(async () => {
  await app.stop();
});

const PATH = { type: 'path', operator: 'equals', value: '/x' };
const MOCK = { type: 'mock', status: 200 };

function post(rule: unknown) {
  return call(app, 'POST', '/endpoints/valid/rules', rule);
}
async function accepted(rule: unknown): Promise<Res['body']> {
  const r = await post(rule);
  assert.equal(r.status, 201, r.text);
  return r.body;
}
const withCondition = (c: unknown) => ({ conditions: [c], action: MOCK });
const withAction = (a: unknown) => ({ conditions: [PATH], action: a });

// SPEC §4 (changed): TRACE is a rule method too; this test refused it before.
void test('method: the nine values are accepted, anything else is a 400 at /method', async () => {
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', '*'])
    assert.equal((await accepted({ method, ...withAction(MOCK) })).method, method);
  assertDetail(await post({ method: 'get', ...withAction(MOCK) }), '/method', '"get"');
  assertDetail(await post({ method: 'CONNECT', ...withAction(MOCK) }), '/method', '"CONNECT"');
});

void test('conditions: 1 to 5 (0 and 6 refused)', async () => {
  assertDetail(await post({ conditions: [], action: MOCK }), '/conditions');
  await accepted({ conditions: [PATH], action: MOCK });
  await accepted({ conditions: Array(5).fill(PATH), action: MOCK });
  assertDetail(await post({ conditions: Array(6).fill(PATH), action: MOCK }), '/conditions');
  assertDetail(await post({ action: MOCK }), '/conditions');
  assertDetail(await post({ conditions: [PATH] }), '/action');
});

void test('every condition type with every operator is accepted', async () => {
  const ok = [
    ...['equals', 'starts_with', 'contains', 'regex', 'template'].map((operator) => ({
      type: 'path',
      operator,
      value: operator === 'template' ? '/users/:id' : operator === 'regex' ? '^/u/(?<id>\\d+)$' : '/u',
    })),
    ...['equals', 'contains', 'regex'].map((operator) => ({
      type: 'header',
      key: 'x-env',
      operator,
      value: 'prod',
    })),
    ...['equals', 'contains', 'regex'].map((operator) => ({
      type: 'query_param',
      key: 'q',
      operator,
      value: 'a',
    })),
    { type: 'query_param', key: 'q', operator: 'exists' },
    ...['contains', 'regex'].map((operator) => ({ type: 'body', operator, value: 'x' })),
    ...['equals', 'not_equals', 'contains', 'not_contains'].map((operator) => ({
      type: 'body_param',
      key: 'user.tags.0',
      operator,
      value: 'a',
    })),
    ...['is_null', 'is_not_null'].map((operator) => ({ type: 'body_param', key: 'user', operator })),
    ...['equals', 'not_equals', 'gt', 'gte', 'lt', 'lte'].map((operator) => ({
      type: 'state',
      key: 'hits',
      stateType: 'counter',
      operator,
      value: '3',
    })),
    { type: 'state', key: 'name', stateType: 'string', operator: 'contains', value: 'bob' },
    { type: 'state', key: 'cart', stateType: 'list', operator: 'not_exists' },
  ];
  for (const c of ok) assert.deepEqual((await accepted(withCondition(c))).conditions, [c]);
});

void test('conditions are validated against their type: operator, key, value, regex', async () => {
  const cases: [unknown, string, string?][] = [
    [{ type: 'cookie', operator: 'equals', value: 'x' }, '/conditions/0/type', '"cookie"'],
    [{ operator: 'equals', value: 'x' }, '/conditions/0/type'],
    ['path', '/conditions/0', '"path"'],
    [{ type: 'path', operator: 'exists', value: '/x' }, '/conditions/0/operator', '"exists"'],
    [{ type: 'header', operator: 'equals', value: 'x' }, '/conditions/0/key'],
    [{ type: 'header', key: 'bad header', operator: 'equals', value: 'x' }, '/conditions/0/key'],
    [{ type: 'path', key: 'k', operator: 'equals', value: '/x' }, '/conditions/0/key', '"k"'],
    [{ type: 'query_param', key: 'q', operator: 'equals' }, '/conditions/0/value'],
    [{ type: 'body', operator: 'equals', value: 'x' }, '/conditions/0/operator'],
    [{ type: 'body_param', key: 'a', operator: 'gt', value: '1' }, '/conditions/0/operator'],
    [{ type: 'state', key: 'k', operator: 'equals', value: '1' }, '/conditions/0/stateType'],
    [
      { type: 'state', key: 'k', stateType: 'map', operator: 'equals', value: '1' },
      '/conditions/0/stateType',
    ],
    [{ type: 'state', key: 'k', stateType: 'counter', operator: 'gt', value: 'many' }, '/conditions/0/value'],
    [{ type: 'path', operator: 'regex', value: '(' }, '/conditions/0/value', '"("'],
    [{ type: 'header', key: 'x', operator: 'regex', value: '[a-' }, '/conditions/0/value'],
    [{ type: 'query_param', key: 'q', operator: 'regex', value: '*' }, '/conditions/0/value'],
    [{ type: 'body', operator: 'regex', value: '(?<n>' }, '/conditions/0/value'],
    [{ type: 'path', operator: 'equals', value: 'no-slash' }, '/conditions/0/value'],
    [{ type: 'path', operator: 'template', value: '/users/:' }, '/conditions/0/value'],
    [{ type: 'path', operator: 'equals', value: 5 }, '/conditions/0/value', '5'],
  ];
  for (const [c, path, received] of cases) assertDetail(await post(withCondition(c)), path, received);
  // A later condition is reported at its own index.
  assertDetail(
    await post({ conditions: [PATH, { type: 'body', operator: 'regex', value: '(' }], action: MOCK }),
    '/conditions/1/value',
  );
});

void test('mock action: status 100..599 and delay 0..600000 at their limits, headers as a list', async () => {
  for (const status of [100, 599])
    assert.equal((await accepted(withAction({ type: 'mock', status }))).action.status, status);
  assertDetail(await post(withAction({ type: 'mock', status: 99 })), '/action/status', '99');
  assertDetail(await post(withAction({ type: 'mock', status: 600 })), '/action/status', '600');
  assertDetail(await post(withAction({ type: 'mock', status: '200' })), '/action/status', '"200"');
  for (const delay of [0, 600_000])
    assert.equal((await accepted(withAction({ type: 'mock', delay }))).action.delay, delay);
  assertDetail(await post(withAction({ type: 'mock', delay: -1 })), '/action/delay', '-1');
  assertDetail(await post(withAction({ type: 'mock', delay: 600_001 })), '/action/delay', '600001');
  const h = await accepted(withAction({ type: 'mock', headers: [{ key: 'X-A', value: '1' }], body: '{}' }));
  assert.deepEqual(h.action.headers, [{ key: 'X-A', value: '1' }]);
  assertDetail(await post(withAction({ type: 'mock', headers: { 'x-a': '1' } })), '/action/headers');
  assertDetail(
    await post(withAction({ type: 'mock', headers: [{ key: 'x a', value: '1' }] })),
    '/action/headers/0/key',
  );
  assertDetail(await post(withAction({ type: 'mock', body: 5 })), '/action/body', '5');
  assertDetail(await post(withAction({ type: 'mock', templated: 'yes' })), '/action/templated');
  assertDetail(await post(withAction({ type: 'mock', colour: 'red' })), '/action/colour');
  assertDetail(await post(withAction({ type: 'redirect' })), '/action/type', '"redirect"');
  assertDetail(await post(withAction({ status: 200 })), '/action/type');
});

void test('weighted action: weights must sum to 100, each response validated', async () => {
  const ok = await accepted(
    withAction({
      type: 'weighted',
      responses: [
        { name: 'a', weight: 70 },
        { weight: 30, status: 500, delay: 10 },
      ],
    }),
  );
  assert.deepEqual(ok.action.responses[1], {
    name: '',
    weight: 30,
    status: 500,
    headers: [],
    body: '',
    templated: false,
    delay: 10,
  });
  assertDetail(
    await post(withAction({ type: 'weighted', responses: [{ weight: 60 }, { weight: 30 }] })),
    '/action/responses',
    '90',
  );
  assertDetail(
    await post(withAction({ type: 'weighted', responses: [{ weight: 101 }] })),
    '/action/responses/0/weight',
  );
  assertDetail(await post(withAction({ type: 'weighted', responses: [] })), '/action/responses');
  assertDetail(
    await post(withAction({ type: 'weighted', responses: [{ weight: 100, status: 42 }] })),
    '/action/responses/0/status',
    '42',
  );
  assertDetail(
    await post(withAction({ type: 'weighted', responses: [{ status: 200 }] })),
    '/action/responses/0/weight',
  );
});

void test('callout action: behavior, url and method are validated', async () => {
  const ok = await accepted(
    withAction({
      type: 'callout',
      behavior: 'async',
      callout: { url: 'https://hooks.example.com/x', method: 'POST' },
      status: 202,
    }),
  );
  assert.equal(ok.action.status, 202);
  assert.equal(ok.action.callout.templated, false);
  await accepted(withAction({ type: 'callout', behavior: 'sync', callout: { url: 'http://127.0.0.1:9/' } }));
  assertDetail(
    await post(withAction({ type: 'callout', behavior: 'later', callout: { url: 'http://a.b/' } })),
    '/action/behavior',
  );
  assertDetail(await post(withAction({ type: 'callout', behavior: 'sync' })), '/action/callout');
  assertDetail(
    await post(withAction({ type: 'callout', behavior: 'sync', callout: { url: 'ftp://a.b/x' } })),
    '/action/callout/url',
  );
  assertDetail(
    await post(withAction({ type: 'callout', behavior: 'sync', callout: { url: 'http://[x/' } })),
    '/action/callout/url',
  );
  assertDetail(
    await post(
      withAction({ type: 'callout', behavior: 'sync', callout: { url: 'http://a.b/', method: 'FETCH' } }),
    ),
    '/action/callout/method',
  );
});

void test('crud action: idField defaults to "id" and must be a field name', async () => {
  assert.deepEqual((await accepted(withAction({ type: 'crud' }))).action, { type: 'crud', idField: 'id' });
  assert.equal((await accepted(withAction({ type: 'crud', idField: 'uuid' }))).action.idField, 'uuid');
  assertDetail(await post(withAction({ type: 'crud', idField: 'a b' })), '/action/idField');
});

void test('top-level fields: enabled, description, unknown fields', async () => {
  assertDetail(await post({ enabled: 'yes', ...withAction(MOCK) }), '/enabled', '"yes"');
  assertDetail(await post({ description: 'x'.repeat(1001), ...withAction(MOCK) }), '/description');
  assertDetail(await post({ priority: 1, ...withAction(MOCK) }), '/priority', '1');
  assertDetail(await post([PATH]), '/');
  const r = await post({ method: 'NOPE', conditions: [{ type: 'x' }], action: { type: 'mock', status: 1 } });
  const paths = (r.body.error.details as { path: string }[]).map((d) => d.path);
  assert.deepEqual(
    paths.sort(),
    ['/action/status', '/conditions/0/type', '/method'],
    'every problem at once',
  );
});

void test('a body that is not JSON is a 400 validation_error', async () => {
  const r = await app.inject({
    method: 'POST',
    url: '/api/v2/endpoints/valid/rules',
    headers: {
      authorization: `Bearer mb_test_admin_key_0123456789abcdefghijklmnopqrstuv`,
      'content-type': 'application/json',
    },
    payload: '{"conditions": [',
  });
  assert.equal(r.statusCode, 400);
  assert.equal(JSON.parse(r.body).error.code, 'validation_error');
});
