/**
 * Documents as users have them (issue 35 item 4): a document with problems that do not prevent mocking
 * (an undeclared path parameter, a dangling or unused component, an invalid example, no operations) is
 * accepted, its problems listed as `warnings` in the job's result and in GET …/specs; a document the
 * mock cannot read is still refused with its findings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertError, call, createEndpoint } from '../helpers/api-helpers.js';
import { capWarnings, OAS_WARNINGS_MAX } from '../../src/oas/lint.js';
import { hit, postSpec, uploadSpec } from './oas-helpers.js';

const ok = { '200': { description: 'ok' } };

function doc(extra: Record<string, unknown>): Record<string, unknown> {
  return { openapi: '3.0.3', info: { title: 'Lenient', version: '1' }, paths: {}, ...extra };
}

interface Warning {
  path: string;
  message: string;
}

/** Uploads `d` to a fresh endpoint; answers the job's warnings after checking GET …/specs lists the same. */
async function warningsOf(app: TestApp, ep: string, d: unknown): Promise<Warning[]> {
  await createEndpoint(app, ep);
  const job = await uploadSpec(app, ep, d);
  const warnings = job.body.result.warnings as Warning[];
  const spec = await call(app, 'GET', `/endpoints/${ep}/specs`);
  assert.equal(spec.status, 200, spec.text);
  assert.deepEqual(spec.body.data.warnings, warnings);
  return warnings;
}

test('a clean document has no warnings, in the job and in GET …/specs', async () => {
  const app = await startApp();
  try {
    const w = await warningsOf(app, 'clean', doc({ paths: { '/p': { get: { responses: ok } } } }));
    assert.deepEqual(w, []);
    const r = await postSpec(app, 'clean', doc({ paths: { '/p': { get: { responses: ok } } } }));
    assert.match(r.body.message, /^The document is valid;/);
  } finally {
    await app.stop();
  }
});

test('an undeclared path parameter is a warning and the operation answers', async () => {
  const app = await startApp();
  try {
    const d = doc({
      paths: {
        '/pets/{id}': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
                },
              },
            },
          },
        },
      },
    });
    const r = await postSpec(app, 'undeclared', d);
    assertError(r, 404, 'not_found');
    await createEndpoint(app, 'undeclared');
    const posted = await postSpec(app, 'undeclared', d);
    assert.equal(posted.status, 202, posted.text);
    assert.match(posted.body.message, /with 1 warning \(see the job's result\)/);
    const w = await warningsOf(app, 'undeclared2', d);
    assert.equal(w.length, 1, JSON.stringify(w));
    assert.match(w[0]!.message, /missing path parameter\(s\) for `\{id\}`/);
    const res = await hit(app, 'undeclared2', 'GET', '/pets/7');
    assert.equal(res.status, 200, res.text);
    assert.equal(typeof res.body.n, 'number');
  } finally {
    await app.stop();
  }
});

test('a dangling reference is a warning and the schema it named is served as any value', async () => {
  const app = await startApp();
  try {
    const d = doc({
      paths: {
        '/p': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } },
              },
            },
          },
        },
      },
    });
    const w = await warningsOf(app, 'dangling', d);
    assert.deepEqual(w, [
      {
        path: '/paths/~1p/get/responses/200/content/application~1json/schema/$ref',
        message:
          'The reference "#/components/schemas/Nope" points at nothing in the document; it is served as an empty schema (any value).',
      },
    ]);
    const res = await hit(app, 'dangling', 'GET', '/p');
    assert.equal(res.status, 200, res.text);
  } finally {
    await app.stop();
  }
});

test('unused components are warnings, one each; used ones (also through a deeper pointer) are not', async () => {
  const app = await startApp();
  try {
    const d = doc({
      paths: {
        '/p': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': { schema: { $ref: '#/components/schemas/Used/properties/id' } },
                },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Used: { type: 'object', properties: { id: { type: 'integer' } } },
          Unused: { type: 'string' },
        },
        responses: { Gone: { description: 'never referred to' } },
        securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'x-key' } },
      },
    });
    const w = await warningsOf(app, 'unused', d);
    assert.deepEqual(
      w.map((x) => x.path),
      ['/components/schemas/Unused', '/components/responses/Gone'],
    );
    assert.match(w[0]!.message, /Nothing in the document refers to this component/);
  } finally {
    await app.stop();
  }
});

test('an invalid example is a warning (named examples and request bodies too) and is still served', async () => {
  const app = await startApp();
  try {
    const d = doc({
      paths: {
        '/p': {
          post: {
            requestBody: {
              content: { 'application/json': { schema: { type: 'integer' }, example: 'not a number' } },
            },
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      required: ['at'],
                      properties: { at: { type: 'string', pattern: '^\\d\\d:\\d\\d$' } },
                    },
                    examples: { good: { value: { at: '10:30' } }, bad: { value: { at: 'noon' } } },
                  },
                },
              },
            },
          },
        },
      },
    });
    const w = await warningsOf(app, 'examples', d);
    assert.deepEqual(
      w.map((x) => x.path),
      [
        '/paths/~1p/post/requestBody/content/application~1json/example',
        '/paths/~1p/post/responses/200/content/application~1json/examples/bad/value',
      ],
    );
    assert.match(w[0]!.message, /not valid against its schema: \(the value\) must be integer/);
    assert.match(w[1]!.message, /\/at must match pattern/);
    const res = await hit(app, 'examples', 'POST', '/p', { prefer: 'example=bad' });
    assert.deepEqual(res.body, { at: 'noon' });
  } finally {
    await app.stop();
  }
});

test('a Swagger 2.0 example by media type is checked against the response schema', async () => {
  const app = await startApp();
  try {
    const d = {
      swagger: '2.0',
      info: { title: 'S', version: '1' },
      paths: {
        '/n': {
          get: {
            produces: ['application/json'],
            responses: {
              '200': {
                description: 'ok',
                schema: { type: 'integer', minimum: 1 },
                examples: { 'application/json': 0 },
              },
            },
          },
        },
      },
    };
    const w = await warningsOf(app, 'swagger', d);
    assert.equal(w.length, 1, JSON.stringify(w));
    assert.equal(w[0]!.path, '/paths/~1n/get/responses/200/examples/application~1json');
    assert.match(w[0]!.message, /must be >= 1/);
  } finally {
    await app.stop();
  }
});

test('a document with no operations is accepted with a warning', async () => {
  const app = await startApp();
  try {
    const w = await warningsOf(app, 'empty', doc({}));
    assert.deepEqual(w, [
      { path: '/paths', message: 'The document describes no operations: nothing is mocked.' },
    ]);
  } finally {
    await app.stop();
  }
});

test('a duplicated operationId is a warning; a document that breaks the OpenAPI schema is still refused', async () => {
  const app = await startApp();
  try {
    const dup = doc({
      paths: {
        '/p': { get: { operationId: 'a', responses: ok }, post: { operationId: 'a', responses: ok } },
      },
    });
    const w = await warningsOf(app, 'dup', dup);
    assert.equal(w.length, 1, JSON.stringify(w));
    assert.match(w[0]!.message, /operationId `a` is duplicated/);

    await createEndpoint(app, 'broken');
    const r = await postSpec(app, 'broken', {
      openapi: '3.0.3',
      paths: { '/p': { get: { responses: ok } } },
    });
    assertError(r, 400, 'validation_error');
    assert.ok(r.text.includes("must have required property 'info'"), r.text);
  } finally {
    await app.stop();
  }
});

test(`warnings are capped at OAS_WARNINGS_MAX (${OAS_WARNINGS_MAX}), the last counting the others`, () => {
  const many = (n: number): Warning[] =>
    Array.from({ length: n }, (_, i) => ({ path: `/${i}`, message: 'm' }));
  assert.equal(capWarnings(many(OAS_WARNINGS_MAX - 1)).length, OAS_WARNINGS_MAX - 1);
  assert.deepEqual(capWarnings(many(OAS_WARNINGS_MAX)), many(OAS_WARNINGS_MAX));
  const over = capWarnings(many(OAS_WARNINGS_MAX + 1));
  assert.equal(over.length, OAS_WARNINGS_MAX);
  assert.deepEqual(over.at(-1), { path: '/', message: '2 more warnings not listed.' });
  assert.deepEqual(over.at(-2), { path: `/${OAS_WARNINGS_MAX - 2}`, message: 'm' });
});
