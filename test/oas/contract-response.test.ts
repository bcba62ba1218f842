/**
 * Response validation (SPEC §7, contract checking; src/oas/contract-response.ts): the response for a
 * status (exact, `2XX`, `default`; none is a violation `in: 'status'`), the answer's media type, a JSON
 * body against the schema; streamed and oversized answers are not buffered; and the bounds shared with
 * request checking: a schema past OAS_CONTRACT_SCHEMA_NODES is skipped with a note (limit − 1, limit,
 * limit + 1), a list of violations past OAS_CONTRACT_VIOLATIONS_MAX is cut.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { Answer } from '../../src/http/index.js';
import { compileSpec, type CompiledSpec } from '../../src/oas/compile.js';
import { checkResponse, responseFor } from '../../src/oas/contract-response.js';
import { capViolations, checkRequest, OAS_CONTRACT_VIOLATIONS_MAX } from '../../src/oas/contract-request.js';
import { checkerAt, countNodes } from '../../src/oas/contract-schemas.js';
import { readDocument } from '../../src/oas/document.js';
import { readdirSync, readFileSync } from 'node:fs';
import { respond } from '../../src/oas/respond.js';
import { fakerOf, loadFakeData } from '../../src/template/index.js';
import { req } from '../mock/rule-helpers.js';
import { bigSpec } from './big-spec.js';

const DOC = {
  openapi: '3.0.3',
  info: { title: 'r', version: '1' },
  paths: {
    '/pets/{id}': {
      get: {
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
          '4XX': {
            description: 'client',
            content: { 'application/problem+json': { schema: { type: 'object' } } },
          },
          '404': { description: 'none', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
      delete: { responses: { '204': { description: 'gone' }, default: { description: 'any' } } },
    },
  },
  components: {
    schemas: {
      Pet: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'integer' }, name: { type: 'string' } },
      },
    },
  },
};

function answer(status: number, body: string, type?: string): Answer {
  return { status, headers: type ? { 'content-type': type } : {}, body };
}

function check(spec: CompiledSpec, method: string, a: Answer) {
  const m = spec.match(method, '/pets/1');
  assert.ok(m);
  return checkResponse(spec, m.op, a);
}

const JSON_TYPE = 'application/json; charset=utf-8';

test('a body that keeps the schema has no violations; one missing a required field or of a wrong type has one', async () => {
  const spec = await compileSpec(DOC, false);
  assert.deepEqual(check(spec, 'GET', answer(200, '{"id":1,"name":"Rex"}', JSON_TYPE)), {
    violations: [],
    problems: [],
  });
  assert.deepEqual(check(spec, 'GET', answer(200, '{"id":1}', JSON_TYPE)).violations, [
    { in: 'body', path: '/name', message: 'is required' },
  ]);
  assert.deepEqual(check(spec, 'GET', answer(200, '{"id":"1","name":"a"}', JSON_TYPE)).violations, [
    { in: 'body', path: '/id', message: 'must be integer' },
  ]);
  assert.deepEqual(check(spec, 'GET', answer(200, '{"id":', JSON_TYPE)).violations, [
    { in: 'body', path: '', message: 'is not valid JSON' },
  ]);
  assert.deepEqual(
    check(spec, 'GET', {
      ...answer(200, ''),
      body: Buffer.from('{"id":1,"name":"b"}'),
      headers: { 'content-type': JSON_TYPE },
    }).violations,
    [],
  );
});

test('the response for a status: exact code, then its class, then default; none is a violation in status', async () => {
  const spec = await compileSpec(DOC, false);
  // 404 exact (text/plain), 400 by 4XX (problem+json).
  assert.deepEqual(check(spec, 'GET', answer(404, 'nope', 'text/plain')).violations, []);
  assert.deepEqual(check(spec, 'GET', answer(400, '{}', 'application/problem+json')).violations, []);
  assert.deepEqual(check(spec, 'GET', answer(500, 'x', 'text/plain')).violations, [
    {
      in: 'status',
      path: '500',
      message: 'The operation describes no response for status 500 (it describes 200, 404, 4XX).',
    },
  ]);
  assert.deepEqual(check(spec, 'DELETE', answer(500, 'x', 'text/plain')).violations, [], 'default');
  assert.equal(responseFor([{ key: '2xx', media: [] }], 201)?.key, '2xx');
});

test('media type: another type, or none, is a violation; a response without content takes any body', async () => {
  const spec = await compileSpec(DOC, false);
  assert.deepEqual(check(spec, 'GET', answer(200, 'x', 'text/html')).violations, [
    { in: 'content-type', path: 'text/html', message: 'Response 200 is application/json, not text/html.' },
  ]);
  assert.deepEqual(check(spec, 'GET', answer(200, '{"id":1,"name":"a"}')).violations, [
    {
      in: 'content-type',
      path: '',
      message: 'The answer has no Content-Type; response 200 is application/json.',
    },
  ]);
  assert.deepEqual(check(spec, 'DELETE', answer(204, '')).violations, []);
  assert.deepEqual(check(spec, 'GET', answer(200, '')).violations, [], 'an empty body has no type to check');
});

test('a streamed answer is checked for status and type, never read (its body is not checked); an oversized body is not parsed', async () => {
  const spec = await compileSpec(DOC, false);
  const stream = new Readable({
    read() {
      throw new Error('read');
    },
  });
  const streamed = check(spec, 'GET', {
    status: 200,
    headers: { 'content-type': JSON_TYPE },
    body: '',
    stream,
  });
  assert.deepEqual(streamed.violations, []);
  assert.deepEqual(
    streamed.problems,
    [],
    'its body is not checked, and no note says so on every proxied answer',
  );
  assert.equal(
    check(spec, 'GET', { status: 200, headers: { 'content-type': 'text/html' }, body: '', stream })
      .violations[0]?.in,
    'content-type',
  );
  stream.destroy();
  const m = spec.match('GET', '/pets/1')!;
  const body = '{"id":1}';
  for (const [max, violations, problems] of [
    [body.length - 1, 0, 1],
    [body.length, 1, 0],
    [body.length + 1, 1, 0],
  ] as const) {
    const r = checkResponse(spec, m.op, answer(200, body, JSON_TYPE), max);
    assert.equal(r.violations.length, violations, `limit ${max}`);
    assert.equal(r.problems.length, problems, `limit ${max}`);
  }
});

test('Swagger 2.0: the response schema under each produced type', async () => {
  const spec = await compileSpec(
    {
      swagger: '2.0',
      info: { title: 's', version: '1' },
      produces: ['application/json'],
      paths: {
        '/pets/{id}': {
          get: {
            responses: {
              200: { description: 'ok', schema: { type: 'object', required: ['id'] } },
              default: { description: 'error' },
            },
          },
        },
      },
    },
    false,
  );
  assert.deepEqual(check(spec, 'GET', answer(200, '{"id":1}', JSON_TYPE)).violations, []);
  assert.deepEqual(check(spec, 'GET', answer(200, '{}', JSON_TYPE)).violations, [
    { in: 'body', path: '/id', message: 'is required' },
  ]);
});

test('a schema past OAS_CONTRACT_SCHEMA_NODES is skipped with a note: limit − 1, limit, limit + 1', async () => {
  const spec = await compileSpec(DOC, false);
  const at = '/components/schemas/Pet';
  const nodes = countNodes(spec.root, at, 1000);
  assert.equal(nodes, 5, 'Pet, its required list, properties, id, name');
  const fresh = async () => compileSpec(DOC, false);
  assert.ok('skipped' in checkerAt(await fresh(), at, { coerce: false }, nodes - 1));
  assert.match(
    (checkerAt(await fresh(), at, { coerce: false }, nodes - 1) as { skipped: string }).skipped,
    /^The schema at \/components\/schemas\/Pet was not checked: it has more than 4 nodes/,
  );
  assert.ok('validate' in checkerAt(await fresh(), at, { coerce: false }, nodes));
  assert.ok('validate' in checkerAt(await fresh(), at, { coerce: false }, nodes + 1));
  // A recursive schema is counted once per node, and the count stops past the limit.
  const loop = { a: { properties: { self: { $ref: '#/a' } } } };
  assert.equal(countNodes(loop, '/a', 100), 3);
  assert.equal(countNodes({ a: [[[[[]]]]] }, '/a', 2), 3);
});

test('a skipped schema leaves a note on the check, never a violation', async () => {
  const spec = await compileSpec(DOC, false);
  const m = spec.match('GET', '/pets/1')!;
  checkerAt(spec, '/components/schemas/Pet', { coerce: false }, 1);
  // The response's schema is a $ref to Pet: counted through it.
  checkerAt(
    spec,
    '/paths/~1pets~1{id}/get/responses/200/content/application~1json/schema',
    { coerce: false },
    1,
  );
  const r = checkResponse(spec, m.op, answer(200, '{}', JSON_TYPE));
  assert.deepEqual(r.violations, []);
  assert.equal(r.problems.length, 1);
  assert.match(r.problems[0]!, /was not checked: it has more than 1 nodes/);
});

test('violations past OAS_CONTRACT_VIOLATIONS_MAX are cut, the last saying how many more', () => {
  const list = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ in: 'query', path: `p${i}`, message: 'x' }));
  const max = OAS_CONTRACT_VIOLATIONS_MAX;
  assert.equal(capViolations(list(max - 1)).length, max - 1);
  assert.deepEqual(capViolations(list(max)), list(max));
  const cut = capViolations(list(max + 1));
  assert.equal(cut.length, max);
  assert.deepEqual(cut.at(-1), { in: 'more', path: '', message: '2 more violations not listed.' });
});

test('the OAI petstore (allOf of $refs): a pet keeps the contract, one without its id does not', async () => {
  const text = readFileSync(
    new URL('../fixtures/openapi/oai-v3.0-petstore-expanded.yaml', import.meta.url),
    'utf8',
  );
  const spec = await compileSpec(readDocument(text), false);
  const m = spec.match('GET', '/pets/7')!;
  assert.deepEqual(checkResponse(spec, m.op, answer(200, '{"id":7,"name":"Rex"}', JSON_TYPE)).violations, []);
  assert.deepEqual(checkResponse(spec, m.op, answer(200, '{"name":"Rex"}', JSON_TYPE)).violations, [
    { in: 'body', path: '/id', message: 'is required' },
  ]);
});

test("generated answers keep their operation's response contract: every operation of the fixture documents", async () => {
  await loadFakeData();
  const faker = fakerOf('en')!;
  const dir = new URL('../fixtures/openapi/', import.meta.url);
  let checked = 0;
  for (const file of readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f))) {
    const spec = await compileSpec(readDocument(readFileSync(new URL(file, dir), 'utf8')), true);
    const paths = (spec.root['paths'] ?? {}) as Record<string, Record<string, unknown>>;
    for (const [path, item] of Object.entries(paths))
      for (const method of Object.keys(item).filter((k) =>
        ['get', 'post', 'put', 'delete', 'patch'].includes(k),
      )) {
        const concrete = path.replace(/\{[^}]+\}/g, '1');
        const m = spec.match(method.toUpperCase(), concrete);
        if (!m) continue;
        const r = await req(method.toUpperCase(), concrete, { headers: { accept: 'application/json' } });
        const { answer: a } = respond(spec, m.op, r, faker);
        assert.deepEqual(
          checkResponse(spec, m.op, a).violations,
          [],
          `${file} ${method} ${path}: ${String(a.body)}`,
        );
        checked++;
      }
  }
  assert.ok(checked > 30, `${checked} operations`);
});

test('readOnly properties are required in answers and not in requests; writeOnly ones the other way round', async () => {
  const doc = {
    openapi: '3.0.3',
    info: { title: 'ro', version: '1' },
    paths: {
      '/users': {
        post: {
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } } },
          responses: {
            '201': {
              description: 'made',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Id: { type: 'integer', readOnly: true },
        User: {
          type: 'object',
          required: ['id', 'name', 'password'],
          properties: {
            id: { $ref: '#/components/schemas/Id' },
            name: { type: 'string' },
            password: { type: 'string', writeOnly: true },
          },
        },
      },
    },
  };
  const spec = await compileSpec(doc, false);
  const m = spec.match('POST', '/users')!;
  const request = await req('POST', '/users', {
    body: '{"name":"a","password":"p"}',
    contentType: 'application/json',
  });
  assert.deepEqual(checkRequest(spec, m, request).violations, []);
  const noPassword = await req('POST', '/users', { body: '{"name":"a"}', contentType: 'application/json' });
  assert.deepEqual(checkRequest(spec, m, noPassword).violations, [
    { in: 'body', path: '/password', message: 'is required' },
  ]);
  assert.deepEqual(checkResponse(spec, m.op, answer(201, '{"id":1,"name":"a"}', JSON_TYPE)).violations, []);
  assert.deepEqual(checkResponse(spec, m.op, answer(201, '{"name":"a"}', JSON_TYPE)).violations, [
    { in: 'body', path: '/id', message: 'is required' },
  ]);
  // The document itself is not changed.
  assert.deepEqual((spec.root as typeof doc).components.schemas.User.required, ['id', 'name', 'password']);
});

test('the first check on a 5 MB document costs what its schemas reach, not the whole document', async () => {
  const spec = await compileSpec(JSON.stringify(bigSpec(4000)), false);
  const r = await req('GET', '/things7/a/parts/b');
  const m = spec.match('GET', r.pathname)!;
  const started = performance.now();
  assert.deepEqual(checkRequest(spec, m, r).violations, []);
  const res = checkResponse(
    spec,
    m.op,
    answer(200, '{"id":"0f8fad5b-d9cb-469f-a165-70867728950e"}', JSON_TYPE),
  );
  const took = performance.now() - started;
  assert.deepEqual(res.violations, [{ in: 'body', path: '/name', message: 'is required' }]);
  // Handing ajv the whole document held the loop 1.2 s for 10 MB (loaded machine); its schemas, a few ms.
  assert.ok(took < 250, `${took.toFixed(0)} ms`);
});

test('a schema ajv cannot compile (a $ref out of the document) is skipped with a note; a dangling one allows anything', async () => {
  const spec = await compileSpec(
    {
      openapi: '3.0.3',
      info: { title: 'x', version: '1' },
      paths: {
        '/a': {
          post: {
            requestBody: { content: { 'application/json': { schema: { $ref: 'other.yaml#/Thing' } } } },
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Gone' } } },
              },
            },
          },
        },
      },
    },
    false,
  );
  const m = spec.match('POST', '/a')!;
  const r = checkRequest(spec, m, await req('POST', '/a', { body: '{}', contentType: 'application/json' }));
  assert.deepEqual(r.violations, []);
  assert.equal(r.problems.length, 1);
  assert.match(
    r.problems[0]!,
    /^The schema at \/paths\/~1a\/post\/requestBody\/content\/application~1json\/schema was not checked: /,
  );
  assert.deepEqual(checkResponse(spec, m.op, answer(200, '[1]', JSON_TYPE)), {
    violations: [],
    problems: [],
  });
});
