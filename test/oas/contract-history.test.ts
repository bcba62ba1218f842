/**
 * Contract checking end to end (SPEC §7): with a document uploaded and the default `report` mode, what
 * the engine finds reaches the history as the API shows it (`validation`, `responseValidation`), and
 * `?validation=failed|passed` picks the requests by it. A request the document does not describe
 * carries neither list.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../helpers/endpoint.js';
import { call, createEndpoint, createRule } from '../helpers/api-helpers.js';
import { uploadSpec } from './oas-helpers.js';

const DOC = {
  openapi: '3.0.3',
  info: { title: 'Shop', version: '1' },
  paths: {
    '/items/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          '200': {
            description: 'an item',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'name'],
                  properties: { id: { type: 'integer' }, name: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** A rule that drifts from the document: its answer lacks the required `name`. */
const drift = {
  method: 'GET',
  conditions: [{ type: 'path', operator: 'equals', value: '/items/7' }],
  action: {
    type: 'mock',
    status: 200,
    headers: [{ key: 'content-type', value: 'application/json' }],
    body: '{"id":7}',
  },
};

interface Entry {
  path: string;
  validation?: { in: string; path: string; message: string }[];
  responseValidation?: { in: string; path: string; message: string }[];
}

test('report mode: the history keeps both lists, and ?validation= filters by them', async (t) => {
  const app = await useApp(t);
  await createEndpoint(app, 'shop');
  await uploadSpec(app, 'shop', DOC);
  await createRule(app, 'shop', drift);
  for (const path of ['/items/abc', '/items/7', '/items/8', '/elsewhere'])
    assert.equal((await app.inject({ url: `/e/shop${path}` })).statusCode, 200, path);

  const list = async (query: string): Promise<Entry[]> =>
    (await call(app, 'GET', `/endpoints/shop/requests?limit=10${query}`)).body.data as Entry[];
  const byPath = new Map((await list('')).map((e) => [e.path, e]));

  const bad = byPath.get('/items/abc')!;
  assert.deepEqual(
    bad.validation?.map((v) => [v.in, v.path]),
    [['path', 'id']],
  );
  assert.match(bad.validation[0]!.message, /integer/);
  assert.deepEqual(bad.responseValidation, [], 'the generated answer keeps the contract');

  const drifted = byPath.get('/items/7')!;
  assert.deepEqual(drifted.validation, []);
  assert.equal(drifted.responseValidation?.[0]?.in, 'body');
  assert.match(JSON.stringify(drifted.responseValidation), /name/);

  assert.deepEqual(byPath.get('/items/8')?.validation, []);
  assert.deepEqual(byPath.get('/items/8')?.responseValidation, []);
  const undescribed = byPath.get('/elsewhere')!;
  assert.equal('validation' in undescribed, false);
  assert.equal('responseValidation' in undescribed, false);

  assert.deepEqual((await list('&validation=failed')).map((e) => e.path).sort(), ['/items/7', '/items/abc']);
  assert.deepEqual(
    (await list('&validation=passed')).map((e) => e.path),
    ['/items/8'],
  );
});
