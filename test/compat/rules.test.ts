/**
 * Conformance: rules. The requests are the rule shapes a hosted-service script sends: every condition
 * type, and the mock, weighted, callout and crud actions; every rule route's answer is checked.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { conforms, conformsError, send } from './conformance.js';

let app: TestApp;
const R = '/api/v2/endpoints/shop/rules';
before(async () => {
  app = await startApp();
  conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'shop' }));
});
after(async () => {
  await app.stop();
});

const path = (value: string, operator = 'equals') => ({ type: 'path', operator, value });

/** Rules as scripts send them: most fields left to their defaults. */
const RULES: Record<string, unknown> = {
  mock: {
    method: 'GET',
    description: 'one user',
    conditions: [
      path('/users/:id', 'template'),
      { type: 'header', key: 'x-env', operator: 'equals', value: 'prod' },
    ],
    action: {
      type: 'mock',
      status: 200,
      headers: [{ key: 'content-type', value: 'application/json' }],
      body: '{"id": "{{pathParam \'id\'}}"}',
      templated: true,
    },
  },
  minimal: { conditions: [path('/health')], action: { type: 'mock' } },
  conditions: {
    method: 'POST',
    conditions: [
      { type: 'query_param', key: 'debug', operator: 'exists' },
      { type: 'body', operator: 'contains', value: 'order' },
      { type: 'body_param', key: 'order.id', operator: 'is_not_null' },
      { type: 'state', key: 'hits', stateType: 'counter', operator: 'greater_than', value: '3' },
      { type: 'graphql', operator: 'equals', value: 'GetUser' },
    ],
    action: { type: 'mock', status: 201, body: 'ok', delay: 12.5 },
  },
  soap: {
    method: 'POST',
    conditions: [{ type: 'soap_action', operator: 'equals', value: 'urn:GetQuote' }],
    action: { type: 'mock', status: 200, body: '<ok/>' },
  },
  weighted: {
    conditions: [path('/flaky')],
    action: {
      type: 'weighted',
      responses: [
        { name: 'ok', weight: 90, status: 200, body: 'fine' },
        { name: 'down', weight: 10, status: 503 },
      ],
    },
  },
  callout: {
    method: 'POST',
    conditions: [path('/pay')],
    action: {
      type: 'callout',
      behavior: 'async',
      callout: { url: 'https://hooks.example.com/paid', delay: { min: 100, max: 200 } },
      status: 202,
      body: 'accepted',
    },
  },
  crud: { conditions: [path('/items', 'starts_with')], action: { type: 'crud', idField: 'id' } },
};

test('POST …/rules answers each shape as a full rule; GET lists them in order', async () => {
  const ids: string[] = [];
  for (const [name, rule] of Object.entries(RULES)) {
    const r = conforms('POST /api/v2/endpoints/:ep/rules', await send(app, 'POST', R, rule));
    assert.equal(r.action.type, (rule as { action: { type: string } }).action.type, name);
    ids.push(r.id);
  }
  const list = conforms('GET /api/v2/endpoints/:ep/rules', await send(app, 'GET', R));
  assert.deepEqual(
    list.data.map((x: { id: string }) => x.id),
    ids,
  );
});

test('GET, PUT, PATCH and DELETE one rule', async () => {
  const id = conforms('POST /api/v2/endpoints/:ep/rules', await send(app, 'POST', R, RULES['minimal'])).id;
  const one = conforms('GET /api/v2/endpoints/:ep/rules/:ruleId', await send(app, 'GET', `${R}/${id}`));
  assert.equal(one.id, id);
  const put = conforms(
    'PUT /api/v2/endpoints/:ep/rules/:ruleId',
    await send(app, 'PUT', `${R}/${id}`, RULES['soap']),
  );
  assert.equal(put.id, id);
  const patched = conforms(
    'PATCH /api/v2/endpoints/:ep/rules/:ruleId',
    await send(app, 'PATCH', `${R}/${id}`, { enabled: false, action: { type: 'mock', status: 500 } }),
  );
  assert.equal(patched.enabled, false);
  assert.equal(patched.action.status, 500);
  const del = conforms('DELETE /api/v2/endpoints/:ep/rules/:ruleId', await send(app, 'DELETE', `${R}/${id}`));
  assert.deepEqual([del.id, del.deleted], [id, true]);
  conformsError(await send(app, 'DELETE', `${R}/${id}`), 404, 'not_found');
  conformsError(await send(app, 'GET', `${R}/${id}`), 404, 'not_found');
});

test('PUT …/rules replaces all; reorder; DELETE …/rules removes all', async () => {
  const replaced = conforms(
    'PUT /api/v2/endpoints/:ep/rules',
    await send(app, 'PUT', R, { rules: [RULES['minimal'], RULES['mock'], RULES['weighted']] }),
  );
  assert.equal(replaced.replaced, 3);
  const ids = (
    conforms('GET /api/v2/endpoints/:ep/rules', await send(app, 'GET', R)).data as { id: string }[]
  ).map((x) => x.id);
  const reordered = conforms(
    'POST /api/v2/endpoints/:ep/rules/reorder',
    await send(app, 'POST', `${R}/reorder`, { order: [ids[2], ids[0]] }),
  );
  assert.equal(reordered.data.reordered, 2);
  const after2 = conforms('GET /api/v2/endpoints/:ep/rules', await send(app, 'GET', R));
  assert.deepEqual(
    after2.data.map((x: { id: string }) => x.id),
    [ids[2], ids[0], ids[1]],
  );
  const deleted = conforms('DELETE /api/v2/endpoints/:ep/rules', await send(app, 'DELETE', R));
  assert.deepEqual([deleted.deleted, deleted.count], [true, 3]);
});

test('an invalid rule is 400 validation_error with details', async () => {
  conformsError(
    await send(app, 'POST', R, { conditions: [path('/x')], action: { type: 'mock', status: 50 } }),
    400,
    'validation_error',
  );
});
