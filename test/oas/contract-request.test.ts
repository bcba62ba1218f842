/**
 * Request validation against an operation (SPEC §7, contract checking; src/oas/contract-request.ts):
 * for each parameter location a valid and an invalid request, required and absent, types (coerced
 * from text) and formats, array styles, the body (required, a missing field, a wrong type, not JSON),
 * the Content-Type (exact, ranges, `+json`), Swagger 2.0 and OpenAPI 3.1 documents.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileSpec, type CompiledSpec } from '../../src/oas/compile.js';
import { checkRequest } from '../../src/oas/contract-request.js';
import { req } from '../mock/rule-helpers.js';

const OAS30 = {
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  paths: {
    '/items/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: {
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 } },
          { name: 'day', in: 'query', schema: { type: 'string', format: 'date' } },
          { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'integer' } } },
          {
            name: 'ids',
            in: 'query',
            explode: false,
            schema: { type: 'array', items: { type: 'integer' } },
          },
          {
            name: 'filter',
            in: 'query',
            style: 'deepObject',
            schema: { $ref: '#/components/schemas/Filter' },
          },
          { name: 'X-Request-Id', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
          { name: 'session', in: 'cookie', required: true, schema: { type: 'string', minLength: 3 } },
          { $ref: '#/components/parameters/Flag' },
        ],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/items': {
      post: {
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/Item' } },
            'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/Item' } },
          },
        },
        responses: { '201': { description: 'created' } },
      },
      put: {
        requestBody: { content: { 'application/*+json': { schema: { type: 'object' } }, 'text/*': {} } },
        responses: { '204': { description: 'done' } },
      },
    },
  },
  components: {
    parameters: { Flag: { name: 'flag', in: 'query', schema: { type: 'boolean' } } },
    schemas: {
      Filter: { type: 'object', properties: { min: { type: 'integer' } }, additionalProperties: false },
      Item: {
        type: 'object',
        required: ['name', 'count'],
        properties: {
          name: { type: 'string' },
          count: { type: 'integer' },
          note: { type: 'string', nullable: true },
        },
      },
    },
  },
};

const GOOD_HEADERS = { 'x-request-id': '0f8fad5b-d9cb-469f-a165-70867728950e', cookie: 'a=1; session=abcd' };

async function check(spec: CompiledSpec, method: string, path: string, opts: Parameters<typeof req>[2] = {}) {
  const request = await req(method, path, opts);
  const m = spec.match(method, request.pathname);
  assert.ok(m, `${method} ${path} matches an operation`);
  return checkRequest(spec, m, request);
}

async function violations(
  spec: CompiledSpec,
  method: string,
  path: string,
  opts: Parameters<typeof req>[2] = {},
) {
  return (await check(spec, method, path, opts)).violations.map((v) => `${v.in} ${v.path}: ${v.message}`);
}

test('a request that keeps the contract has no violations', async () => {
  const spec = await compileSpec(OAS30, false);
  assert.deepEqual(
    await violations(
      spec,
      'GET',
      '/items/12?limit=100&day=2024-02-29&tags=1&tags=2&ids=3,4&filter[min]=2&flag=true',
      {
        headers: GOOD_HEADERS,
      },
    ),
    [],
  );
  assert.deepEqual(await violations(spec, 'GET', '/items/12', { headers: GOOD_HEADERS }), []);
});

test('path parameters: integer coerced from text, `abc` is a violation', async () => {
  const spec = await compileSpec(OAS30, false);
  assert.deepEqual(await violations(spec, 'GET', '/items/abc', { headers: GOOD_HEADERS }), [
    'path id: must be integer',
  ]);
});

test('query parameters: type, maximum, format, arrays (form exploded and comma-separated), deepObject, a $ref', async () => {
  const spec = await compileSpec(OAS30, false);
  const v = (q: string) => violations(spec, 'GET', `/items/1?${q}`, { headers: GOOD_HEADERS });
  assert.deepEqual(await v('limit=ten'), ['query limit: must be integer']);
  assert.deepEqual(await v('limit=101'), ['query limit: must be <= 100']);
  assert.deepEqual(await v('day=2024-02-30x'), ['query day: must match format "date"']);
  assert.deepEqual(await v('tags=1&tags=x'), ['query tags/1: must be integer']);
  assert.deepEqual(await v('tags=7'), []);
  assert.deepEqual(await v('ids=1,y'), ['query ids/1: must be integer']);
  assert.deepEqual(await v('filter[min]=z'), ['query filter/min: must be integer']);
  assert.deepEqual(await v('filter[max]=1'), ['query filter: must NOT have additional properties']);
  assert.deepEqual(await v('flag=maybe'), ['query flag: must be boolean']);
});

test('header parameters: required and absent, and a format', async () => {
  const spec = await compileSpec(OAS30, false);
  assert.deepEqual(await violations(spec, 'GET', '/items/1', { headers: { cookie: 'session=abcd' } }), [
    'header X-Request-Id: is required',
  ]);
  assert.deepEqual(
    await violations(spec, 'GET', '/items/1', { headers: { ...GOOD_HEADERS, 'x-request-id': 'not-a-uuid' } }),
    ['header X-Request-Id: must match format "uuid"'],
  );
});

test('cookie parameters: required and absent, and too short', async () => {
  const spec = await compileSpec(OAS30, false);
  const id = GOOD_HEADERS['x-request-id'];
  assert.deepEqual(await violations(spec, 'GET', '/items/1', { headers: { 'x-request-id': id } }), [
    'cookie session: is required',
  ]);
  assert.deepEqual(
    await violations(spec, 'GET', '/items/1', { headers: { 'x-request-id': id, cookie: 'session=ab' } }),
    ['cookie session: must NOT have fewer than 3 characters'],
  );
});

test('JSON body: valid, a required field missing, a wrong type, nullable, not JSON, required and absent', async () => {
  const spec = await compileSpec(OAS30, false);
  const post = (body: string, contentType = 'application/json') =>
    violations(spec, 'POST', '/items', { body, contentType });
  assert.deepEqual(await post('{"name":"a","count":1,"note":null}'), []);
  assert.deepEqual(await post('{"name":"a"}'), ['body /count: is required']);
  assert.deepEqual(await post('{"name":"a","count":"1"}'), ['body /count: must be integer']);
  assert.deepEqual(await post('{"name":'), ['body : is not valid JSON']);
  assert.deepEqual(await violations(spec, 'POST', '/items'), ['body : A request body is required.']);
});

test('a form body is checked with its fields coerced', async () => {
  const spec = await compileSpec(OAS30, false);
  const form = 'application/x-www-form-urlencoded';
  assert.deepEqual(
    await violations(spec, 'POST', '/items', { body: 'name=a&count=2', contentType: form }),
    [],
  );
  assert.deepEqual(await violations(spec, 'POST', '/items', { body: 'name=a&count=x', contentType: form }), [
    'body /count: must be integer',
  ]);
});

test('Content-Type: one not taken, none at all, ranges (`application/*+json`, `text/*`)', async () => {
  const spec = await compileSpec(OAS30, false);
  assert.deepEqual(await violations(spec, 'POST', '/items', { body: 'x', contentType: 'text/plain' }), [
    'content-type text/plain: The operation takes application/json, application/x-www-form-urlencoded, not text/plain.',
  ]);
  assert.deepEqual(await violations(spec, 'POST', '/items', { body: '{}' }), [
    'content-type : The body has no Content-Type; the operation takes application/json, application/x-www-form-urlencoded.',
  ]);
  const put = (contentType: string, body = '{}') => violations(spec, 'PUT', '/items', { body, contentType });
  assert.deepEqual(await put('application/merge-patch+json'), []);
  assert.deepEqual(await put('application/merge-patch+json', '[]'), ['body : must be object']);
  assert.deepEqual(await put('text/csv; charset=utf-8', 'a,b'), []);
  assert.equal((await put('application/json')).length, 1, 'application/json is not in application/*+json');
  // No body and none required: nothing to check.
  assert.deepEqual(await violations(spec, 'PUT', '/items'), []);
});

const SWAGGER = {
  swagger: '2.0',
  info: { title: 's', version: '1' },
  basePath: '/v2',
  consumes: ['application/json'],
  paths: {
    '/orders/{id}': {
      get: {
        parameters: [
          { name: 'id', in: 'path', required: true, type: 'integer', format: 'int32' },
          { name: 'fields', in: 'query', type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
          { name: 'ids', in: 'query', type: 'array', collectionFormat: 'pipes', items: { type: 'integer' } },
          { name: 'min', in: 'query', type: 'number', minimum: 1, exclusiveMinimum: true },
        ],
        responses: { 200: { description: 'ok' } },
      },
    },
    '/orders': {
      post: {
        parameters: [{ name: 'order', in: 'body', required: true, schema: { $ref: '#/definitions/Order' } }],
        responses: { 201: { description: 'created' } },
      },
      put: {
        consumes: ['application/x-www-form-urlencoded'],
        parameters: [
          { name: 'qty', in: 'formData', required: true, type: 'integer' },
          { name: 'file', in: 'formData', type: 'file' },
        ],
        responses: { 200: { description: 'ok' } },
      },
    },
  },
  definitions: { Order: { type: 'object', required: ['qty'], properties: { qty: { type: 'integer' } } } },
};

test('Swagger 2.0: parameters are their own schemas, collectionFormat, body and formData parameters', async () => {
  const spec = await compileSpec(SWAGGER, false);
  assert.deepEqual(await violations(spec, 'GET', '/v2/orders/5?fields=a,b&ids=1|2&min=2'), []);
  assert.deepEqual(await violations(spec, 'GET', '/v2/orders/99999999999'), [
    'path id: must match format "int32"',
  ]);
  assert.deepEqual(await violations(spec, 'GET', '/v2/orders/5?fields=a,c'), [
    'query fields/1: must be one of ["a","b"]',
  ]);
  assert.deepEqual(await violations(spec, 'GET', '/v2/orders/5?ids=1,2'), ['query ids/0: must be integer']);
  assert.deepEqual(await violations(spec, 'GET', '/v2/orders/5?min=1'), ['query min: must be > 1']);
  const json = 'application/json';
  assert.deepEqual(
    await violations(spec, 'POST', '/v2/orders', { body: '{"qty":1}', contentType: json }),
    [],
  );
  assert.deepEqual(await violations(spec, 'POST', '/v2/orders', { body: '{}', contentType: json }), [
    'body /qty: is required',
  ]);
  assert.deepEqual(await violations(spec, 'POST', '/v2/orders'), ['body : A request body is required.']);
  const form = 'application/x-www-form-urlencoded';
  assert.deepEqual(await violations(spec, 'PUT', '/v2/orders', { body: 'qty=3', contentType: form }), []);
  assert.deepEqual(await violations(spec, 'PUT', '/v2/orders', { body: 'qty=x', contentType: form }), [
    'body /qty: must be integer',
  ]);
  assert.deepEqual(await violations(spec, 'PUT', '/v2/orders', { body: 'n=1', contentType: form }), [
    'body /qty: is required',
  ]);
  assert.deepEqual(await violations(spec, 'PUT', '/v2/orders', { body: '{}', contentType: json }), [
    'body /qty: is required',
    'content-type application/json: The operation takes application/x-www-form-urlencoded, not application/json.',
  ]);
});

test('OpenAPI 3.1: type lists and JSON Schema 2020-12 keywords', async () => {
  const spec = await compileSpec(
    {
      openapi: '3.1.0',
      info: { title: 'u', version: '1' },
      paths: {
        '/u': {
          post: {
            parameters: [{ name: 'n', in: 'query', schema: { type: ['integer', 'null'] } }],
            requestBody: {
              content: {
                'application/json': {
                  schema: { type: 'object', properties: { a: { const: 1 } }, unevaluatedProperties: false },
                },
              },
            },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    },
    false,
  );
  const post = (q: string, body: string) =>
    violations(spec, 'POST', `/u${q}`, { body, contentType: 'application/json' });
  assert.deepEqual(await post('?n=3', '{"a":1}'), []);
  assert.deepEqual(await post('?n=x', '{"a":1}'), ['query n: must be integer,null']);
  assert.deepEqual(await post('', '{"a":2}'), ['body /a: must be equal to constant']);
  assert.deepEqual(await post('', '{"a":1,"b":1}'), ['body : must NOT have unevaluated properties']);
});
