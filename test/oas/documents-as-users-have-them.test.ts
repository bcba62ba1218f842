/**
 * What public documents of the corpus (test/fixtures/openapi) showed the generator and the validator,
 * each stopped here on a small schema: an example holding `$id` twice (box.com's) made the document
 * unreadable to the validator; an `enum` of strings on `type: array` (box.com's) has no valid value; an
 * object's `minProperties` (APIs.guru's) was not met; a `text/json` answer (gov.bc.ca's) was not JSON;
 * no operation of Amazon's EC2 answered, as each is a path `/#Action=…` no request carries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../src/oas/index.js';
import { DocumentSchemas } from '../../src/oas/json-schema.js';
import { fakerOf, loadFakeData } from '../../src/template/index.js';
import { startApp } from '../helpers/app.js';
import { createEndpoint } from '../helpers/api-helpers.js';
import { hit, uploadSpec } from './oas-helpers.js';

async function gen(schema: unknown): Promise<unknown> {
  await loadFakeData();
  return generate(schema, { faker: fakerOf('en')!, root: {}, useExamples: false });
}

test('an example, default or x- value holding `$id` is not read as a schema; a property named `$id` or `example` still is', () => {
  const meta = { $canEdit: true, $id: '01234500-12f1-1234-aa12-b1d234cb567e' };
  const doc = {
    openapi: '3.0.2',
    info: { title: 'T', version: '1' },
    paths: {},
    components: {
      schemas: {
        A: { type: 'object', example: { m: meta }, default: { m: meta }, 'x-sample': meta },
        B: {
          type: 'object',
          additionalProperties: false,
          required: ['$id', 'example'],
          properties: { $id: { type: 'string' }, example: { type: 'integer' } },
          example: meta,
        },
      },
    },
  };
  for (const version of ['3.0.2', '3.1.0']) {
    const schemas = new DocumentSchemas({ ...doc, openapi: version });
    assert.equal(DocumentSchemas.problem(schemas.at('/components/schemas/A'), {}), undefined);
    const b = schemas.at('/components/schemas/B');
    assert.equal(DocumentSchemas.problem(b, { $id: 'x', example: 1 }), undefined);
    assert.match(DocumentSchemas.problem(b, { $id: 'x', example: 'one' }) ?? '', /integer/);
    assert.match(DocumentSchemas.problem(b, { $id: 'x' }) ?? '', /example/);
  }
  // Swagger 2.0's x-nullable still counts, though x- values are left out.
  const s20 = new DocumentSchemas({
    swagger: '2.0',
    info: { title: 'T', version: '1' },
    paths: {},
    definitions: { N: { type: 'string', 'x-nullable': true } },
  });
  assert.equal(DocumentSchemas.problem(s20.at('/definitions/N'), null), undefined);
});

test('an enum with no value of the declared type is left out (optional) or empty; fitting choices are taken', async () => {
  for (let i = 0; i < 10; i++) {
    const o = (await gen({
      type: 'object',
      properties: {
        roles: { type: 'array', items: { type: 'string' }, enum: ['open', 'company'] },
        level: { type: 'integer', enum: ['high', 2, 3.5] },
        maybe: { type: 'string', nullable: true, enum: [null] },
      },
    })) as Record<string, unknown>;
    assert.equal(Object.hasOwn(o, 'roles'), false);
    assert.equal(o['level'], 2);
    assert.equal(o['maybe'], null);
  }
  assert.equal(await gen({ type: 'array', enum: ['a'] }), undefined);
  assert.ok(['a', 'b'].includes((await gen({ enum: ['a', 'b'] })) as string));
});

test('minProperties is met by the declared properties first, then additionalProperties; maxProperties drops optional ones', async () => {
  for (let i = 0; i < 10; i++) {
    assert.equal(
      Object.keys(
        (await gen({
          type: 'object',
          additionalProperties: { type: 'integer' },
          minProperties: 2,
        })) as object,
      ).length >= 2,
      true,
    );
    const map = (await gen({
      type: 'object',
      minProperties: 3,
      additionalProperties: { type: 'integer', minimum: 5, maximum: 5 },
    })) as Record<string, unknown>;
    assert.deepEqual(Object.values(map), [5, 5, 5]);
    const declared = (await gen({
      type: 'object',
      minProperties: 2,
      properties: { a: { type: 'string', writeOnly: true }, b: { type: 'string' } },
    })) as Record<string, unknown>;
    assert.deepEqual(Object.keys(declared).sort(), ['a', 'b']);
    // With nothing more allowed, the fewest there are: not an invalid name.
    const closed = (await gen({ type: 'object', minProperties: 4, additionalProperties: false })) as object;
    assert.deepEqual(closed, {});
    const most = (await gen({
      type: 'object',
      maxProperties: 1,
      required: ['r'],
      properties: { r: { type: 'string' }, o1: { type: 'string' }, o2: { type: 'string' } },
    })) as Record<string, unknown>;
    assert.deepEqual(Object.keys(most), ['r']);
  }
});

test('a text/json response is answered as JSON: a generated string is quoted', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'textjson');
    await uploadSpec(app, 'textjson', {
      openapi: '3.0.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/uri': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: { 'text/json': { schema: { type: 'string', enum: ['basium'] } } },
              },
            },
          },
        },
      },
    });
    const res = await hit(app, 'textjson', 'GET', '/uri');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/json/);
    assert.equal(res.text, '"basium"');
  } finally {
    await app.stop();
  }
});

test('operations told apart by a query parameter (`/#Action=…`, EC2 as APIs.guru writes it) answer `/?Action=…`', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'actions');
    const answer = (name: string) => ({
      responses: {
        '200': { description: name, content: { 'text/xml': { schema: { type: 'string', example: name } } } },
      },
    });
    await uploadSpec(app, 'actions', {
      openapi: '3.0.0',
      info: { title: 'Q', version: '1' },
      paths: {
        '/#Action=DescribeInstances': { get: answer('described'), post: answer('posted') },
        '/#Action=RunInstances': { get: answer('ran') },
        '/plain': { get: answer('plain') },
      },
    });
    const text = async (method: string, path: string): Promise<string> =>
      (await hit(app, 'actions', method, path)).text;
    assert.equal(await text('GET', '/?Action=DescribeInstances&Version=2016-11-15'), 'described');
    assert.equal(await text('POST', '/?Action=DescribeInstances'), 'posted');
    assert.equal(await text('GET', '/?Action=RunInstances'), 'ran');
    assert.equal((await hit(app, 'actions', 'HEAD', '/?Action=RunInstances')).status, 200);
    assert.equal(await text('GET', '/plain?Action=RunInstances'), 'plain');
    // No Action, or one the document does not name: no operation, the endpoint's default answer.
    assert.match(await text('GET', '/'), /has nothing configured for/);
    assert.match(await text('GET', '/?Action=TerminateInstances'), /has nothing configured for/);
    assert.match(await text('POST', '/?Action=RunInstances'), /has nothing configured for/);
  } finally {
    await app.stop();
  }
});
