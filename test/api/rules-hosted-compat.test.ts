/**
 * Rule shapes the hosted service's scripts send (issue 10, item 4): templated header items, fractional
 * delays and weights, the hosted names of the state operators (and their short aliases), GraphQL and
 * SOAP conditions, and regexes checked by the linear-time engine that runs them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertDetail, call, createEndpoint, type Res } from '../helpers/api-helpers.js';

let app: TestApp;
before(async () => {
  app = await startApp();
  await createEndpoint(app, 'hosted');
});
after(async () => {
  await app.stop();
});

const PATH = { type: 'path', operator: 'equals', value: '/x' };
const post = (rule: unknown) => call(app, 'POST', '/endpoints/hosted/rules', rule);
async function accepted(rule: unknown): Promise<Res['body']> {
  const r = await post(rule);
  assert.equal(r.status, 201, r.text);
  return r.body;
}

test('header items carry templated, and round-trip', async () => {
  const headers = [
    { key: 'x-id', value: '{{queryParam "id"}}', templated: true },
    { key: 'set-cookie', value: 'a=1' },
    { key: 'set-cookie', value: 'b=2', templated: false },
  ];
  const r = await accepted({ conditions: [PATH], action: { type: 'mock', headers } });
  assert.deepEqual(r.action.headers, headers);
  assertDetail(
    await post({
      conditions: [PATH],
      action: { type: 'mock', headers: [{ key: 'x', value: 'y', templated: 'yes' }] },
    }),
    '/action/headers/0/templated',
    '"yes"',
  );
});

test('delays and weights may be fractions; weights sum to 100 within rounding', async () => {
  const r = await accepted({ conditions: [PATH], action: { type: 'mock', delay: 12.6 } });
  assert.equal(r.action.delay, 12.6);
  const w = await accepted({
    conditions: [PATH],
    action: {
      type: 'weighted',
      responses: [
        { name: 'a', weight: 33.3 },
        { name: 'b', weight: 33.3 },
        { name: 'c', weight: 33.4, delay: 0.5 },
      ],
    },
  });
  assert.deepEqual(
    w.action.responses.map((x: { weight: number }) => x.weight),
    [33.3, 33.3, 33.4],
  );
  assertDetail(
    await post({
      conditions: [PATH],
      action: { type: 'weighted', responses: [{ weight: 33.3 }, { weight: 33.3 }] },
    }),
    '/action/responses',
  );
});

test('state operators: the hosted names and the short aliases are accepted and kept as sent', async () => {
  for (const operator of [
    'greater_than',
    'less_than',
    'greater_than_equal',
    'less_than_equal',
    'gt',
    'lt',
    'gte',
    'lte',
    'contains',
    'not_contains',
  ]) {
    const c = { type: 'state', key: 'hits', stateType: 'counter', operator, value: '3' };
    assert.deepEqual((await accepted({ conditions: [c], action: { type: 'mock' } })).conditions, [c]);
  }
  assertDetail(
    await post({
      conditions: [{ type: 'state', key: 'k', stateType: 'counter', operator: 'bigger', value: '1' }],
      action: { type: 'mock' },
    }),
    '/conditions/0/operator',
  );
});

test('graphql and soap_action conditions are accepted', async () => {
  const conditions = [
    { type: 'graphql', operator: 'equals', value: 'GetUser' },
    { type: 'graphql', operator: 'regex', value: 'user\\s*\\(' },
    { type: 'soap_action', operator: 'equals', value: 'urn:GetQuote' },
  ];
  assert.deepEqual((await accepted({ conditions, action: { type: 'mock' } })).conditions, conditions);
  assertDetail(
    await post({
      conditions: [{ type: 'soap_action', operator: 'regex', value: 'x' }],
      action: { type: 'mock' },
    }),
    '/conditions/0/operator',
  );
});

test('regexes the linear-time engine refuses (backreferences, lookaround) are a 400 at save time', async () => {
  for (const value of ['(a)\\1', '^(?=admin)', '(?<!x)y']) {
    const r = await post({
      conditions: [{ type: 'path', operator: 'regex', value }],
      action: { type: 'mock' },
    });
    assertDetail(r, '/conditions/0/value');
    assert.match(r.body.error.details[0].message, /linear-time engine/);
  }
  // What RE2 accepts, named groups included, is kept.
  await accepted({
    conditions: [{ type: 'path', operator: 'regex', value: '^/users/(?<id>\\d+)$' }],
    action: { type: 'mock' },
  });
});
