import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { buildApp } from '../../src/server.js';
import { testConfig } from '../../src/config.js';
import { startApp, ADMIN_KEY, type TestApp } from '../helpers/app.js';
import { assertDetail, call } from '../helpers/api-helpers.js';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app.stop();
});

void test('GET /openapi.json is public OpenAPI 3.1 with every route of this change', async () => {
  const r = await call(app, 'GET', '/openapi.json', undefined, null);
  assert.equal(r.status, 200);
  const doc = r.body;
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(doc.servers, [{ url: '/api/v2' }]);
  assert.equal(doc.components.securitySchemes.apiKey.name, 'Authorization');
  const expected: Record<string, string[]> = {
    '/endpoints': ['get', 'post'],
    '/endpoints/{ep}': ['delete', 'get'],
    '/endpoints/{ep}/settings': ['get', 'patch'],
    '/endpoints/{ep}/rules': ['delete', 'get', 'post', 'put'],
    '/endpoints/{ep}/rules/reorder': ['post'],
    '/endpoints/{ep}/rules/{ruleId}': ['delete', 'get', 'patch', 'put'],
    '/keys': ['get', 'post'],
    '/keys/{id}': ['delete'],
    '/openapi.json': ['get'],
    '/docs': ['get'],
  };
  for (const [path, methods] of Object.entries(expected)) {
    assert.ok(doc.paths[path], `missing ${path}`);
    for (const m of methods) assert.ok(doc.paths[path][m], `missing ${m} ${path}`);
  }
  assert.ok(!JSON.stringify(doc.paths).includes('"head"'), 'no automatic HEAD twins');
  assert.ok(!Object.keys(doc.paths).some((p) => p.includes(':')), 'path parameters in {braces}');
  assert.deepEqual(doc.paths['/openapi.json'].get.security, []);
});

void test('operations are generated from the validating schemas: params, body, responses', async () => {
  const doc = (await call(app, 'GET', '/openapi.json', undefined, null)).body;
  const post = doc.paths['/endpoints/{ep}/rules'].post;
  assert.deepEqual(
    post.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required]),
    [['ep', 'path', true]],
  );
  const body = post.requestBody.content['application/json'].schema;
  assert.deepEqual(body.required, ['conditions', 'action']);
  const methods = body.properties.method.anyOf.map((m: { const: string }) => m.const);
  assert.deepEqual(methods, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', '*']);
  const actionTypes = body.properties.action.anyOf.map(
    (a: { properties: { type: { const: string } } }) => a.properties.type.const,
  );
  assert.deepEqual(actionTypes, ['mock', 'weighted', 'callout', 'crud', 'grpc']);
  assert.equal(body.properties.action.anyOf[0].properties.status.maximum, 599);
  assert.ok(post.responses['201'].content['application/json'].schema.properties.id);
  assert.equal(post.responses.default.$ref, '#/components/responses/Error');
  assert.equal(post.tags[0], 'Rules');
  assert.ok(post.summary);
  const patch = doc.paths['/endpoints/{ep}/settings'].patch.requestBody.content['application/json'].schema;
  assert.deepEqual(
    patch.properties.rateLimit.properties.period.anyOf.map((m: { const: string }) => m.const),
    ['Second', 'Minute', 'Hour'],
  );
  const paths = doc.paths as Record<string, Record<string, { operationId: string }>>;
  const ids = Object.values(paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

void test('GET /docs is a public HTML page rendering the document with Swagger UI from this origin', async () => {
  const r = await app.inject({ url: '/api/v2/docs' });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^text\/html/);
  assert.match(String(r.headers['content-security-policy']), /script-src 'self'/);
  assert.doesNotMatch(String(r.headers['content-security-policy']), /unsafe-inline/);
  assert.match(r.body, /\/api-docs\/swagger-ui-bundle\.js/);
  assert.doesNotMatch(r.body, /<script>|https?:\/\/[a-z]/i, 'no inline script, no outside asset');
  // What it renders: the document, with every operation (the browser test opens the page itself).
  const doc = (await app.inject({ url: '/api/v2/openapi.json' })).json();
  assert.ok(doc.paths['/endpoints/{ep}/rules/reorder'].post.summary);
  assertDetail(await call(app, 'GET', '/openapi.json?x=1', undefined, null), '/x');
});

void test('Ajv validation errors of other routes also carry pointer paths and the received value', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mockingbird-ajv-'));
  const built = await buildApp(testConfig({ dataDir, apiKey: ADMIN_KEY }));
  try {
    built.fastify.post(
      '/ajv-probe',
      {
        schema: {
          body: Type.Object(
            { status: Type.Integer({ minimum: 100 }), name: Type.String() },
            { additionalProperties: false },
          ),
        },
      },
      async () => ({ ok: true }),
    );
    await built.fastify.ready();
    const r = await built.inject({
      method: 'POST',
      url: '/ajv-probe',
      payload: { status: 50, extra: 1 },
    });
    assert.equal(r.statusCode, 400);
    const details = JSON.parse(r.body).error.details as { path: string; received?: string }[];
    const byPath = Object.fromEntries(details.map((d) => [d.path, d]));
    assert.ok(byPath['/status'] || byPath['/name'] || byPath['/extra'], r.body);
    const r2 = await built.inject({
      method: 'POST',
      url: '/ajv-probe',
      payload: { status: 50, name: 'x' },
    });
    assert.deepEqual(JSON.parse(r2.body).error.details, [
      { path: '/status', message: 'must be >= 100', received: '50' },
    ]);
    const r3 = await built.inject({ method: 'POST', url: '/ajv-probe', payload: { status: 200 } });
    assert.equal(JSON.parse(r3.body).error.details[0].path, '/name');
  } finally {
    await built.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
