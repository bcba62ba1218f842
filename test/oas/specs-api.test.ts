/**
 * The OpenAPI upload API (SPEC §7): 202 with a job that GET …/jobs/:jobId reports to its end, the
 * spec shown and deleted, 400 at once with the parser's findings, external references refused without
 * a fetch, OAS_SPEC_LIMIT, access and plans.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { startApp } from '../helpers/app.js';
import { testConfig } from '../../src/config.js';
import { assertError, call, createEndpoint, scopedKey } from '../helpers/api-helpers.js';
import { PETSTORE_30_YAML, STORE_20, USERS_31 } from './fixtures.js';
import { postSpec, postSpecMultipart, uploadSpec, waitForJob } from './oas-helpers.js';

test('a valid upload answers 202 with a QUEUED job that ends COMPLETED with the operations found', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'pets');
    const r = await postSpec(app, 'pets', PETSTORE_30_YAML);
    assert.equal(r.status, 202, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['jobId', 'message', 'status', 'type']);
    assert.equal(r.body.type, 'oas');
    assert.equal(r.body.status, 'QUEUED');
    assert.match(r.body.jobId, /^[0-9a-f-]{36}$/);
    const job = await waitForJob(app, 'pets', r.body.jobId);
    assert.equal(job.body.status, 'COMPLETED', job.text);
    assert.equal(job.body.progress, 100);
    assert.equal(job.body.jobId, r.body.jobId);
    assert.match(job.body.completedAt, /^\d{4}-\d\d-\d\dT.*Z$/);
    assert.equal(job.body.failedAt, undefined);
    assert.deepEqual(job.body.result, {
      title: 'Petstore',
      version: '1.0.0',
      specVersion: '3.0.3',
      operations: [
        { method: 'GET', path: '/pets', operationId: 'listPets', summary: 'List all pets' },
        { method: 'POST', path: '/pets', operationId: 'createPet' },
        { method: 'GET', path: '/pets/mine', operationId: 'myPets' },
        { method: 'GET', path: '/pets/{petId}', operationId: 'showPetById' },
      ],
      warnings: [],
    });

    const spec = await call(app, 'GET', '/endpoints/pets/specs');
    assert.equal(spec.status, 200, spec.text);
    assert.equal(spec.body.data.type, 'openapi');
    assert.equal(spec.body.data.intelligenceMock, false);
    assert.equal(spec.body.data.title, 'Petstore');
    assert.equal(spec.body.data.version, '1.0.0');
    assert.equal(spec.body.data.operations.length, 4);
    assert.equal(spec.body.data.jobId, r.body.jobId);

    const del = await call(app, 'DELETE', '/endpoints/pets/specs');
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body, { data: { deleted: true } });
    assertError(await call(app, 'GET', '/endpoints/pets/specs'), 404, 'not_found');
    assertError(await call(app, 'DELETE', '/endpoints/pets/specs'), 404, 'not_found');
  } finally {
    await app.stop();
  }
});

test('OpenAPI 3.1 and Swagger 2.0 documents are taken; the next upload replaces the spec', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'multi');
    const j31 = await uploadSpec(app, 'multi', USERS_31);
    assert.equal(j31.body.result.specVersion, '3.1.0');
    assert.deepEqual(
      j31.body.result.operations.map((o: { method: string; path: string }) => `${o.method} ${o.path}`),
      ['GET /users/{userId}', 'GET /files/{name}.{ext}', 'GET /tree'],
    );
    const j20 = await uploadSpec(app, 'multi', STORE_20);
    assert.equal(j20.body.result.specVersion, '2.0');
    const spec = await call(app, 'GET', '/endpoints/multi/specs');
    assert.equal(spec.body.data.title, 'Store');
    assert.deepEqual(
      spec.body.data.operations.map((o: { method: string; path: string }) => `${o.method} ${o.path}`),
      ['GET /orders/{orderId}', 'DELETE /orders/{orderId}'],
    );
  } finally {
    await app.stop();
  }
});

test('multipart: the document in `file`, `intelligenceMock` beside it; other fields refused', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'multip');
    const r = await postSpecMultipart(app, 'multip', PETSTORE_30_YAML, { intelligenceMock: 'true' });
    assert.equal(r.status, 202, r.text);
    assert.equal((await waitForJob(app, 'multip', r.body.jobId)).body.status, 'COMPLETED');
    assert.equal((await call(app, 'GET', '/endpoints/multip/specs')).body.data.intelligenceMock, true);

    const bad = await postSpecMultipart(app, 'multip', PETSTORE_30_YAML, { intelligenceMock: 'maybe' });
    assertError(bad, 400, 'validation_error');
    assert.equal(bad.body.error.details[0].path, '/intelligenceMock');
    assertError(
      await postSpecMultipart(app, 'multip', PETSTORE_30_YAML, { other: 'x' }),
      400,
      'validation_error',
    );

    // As a body, the flag is a query parameter; unknown parameters are refused.
    const q = await postSpec(app, 'multip', USERS_31, { query: '?intelligenceMock=false' });
    assert.equal(q.status, 202, q.text);
    await waitForJob(app, 'multip', q.body.jobId);
    assert.equal((await call(app, 'GET', '/endpoints/multip/specs')).body.data.intelligenceMock, false);
    assertError(
      await postSpec(app, 'multip', USERS_31, { query: '?intelligence=1' }),
      400,
      'validation_error',
    );
  } finally {
    await app.stop();
  }
});

test('a document that does not parse or validate is 400 at once with the findings, and changes nothing', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'strict');
    await uploadSpec(app, 'strict', USERS_31);
    const cases: [unknown, RegExp][] = [
      [{ openapi: '3.0.3', info: { title: 'No version' }, paths: {} }, /version/],
      [
        {
          openapi: '3.1.0',
          info: { title: 'x', version: '1' },
          paths: { '/a': { get: { responses: { '200': { $ref: '#/components/responses/Nope' } } } } },
        },
        // The reference is removed as dangling, and the response it leaves has no description.
        /"#\/components\/responses\/Nope" points at nothing[^]*required property 'description'/,
      ],
      ['openapi: 3.0.0\ninfo: [unclosed\n', /YAML/],
      ['{"openapi": "3.0.0", "info": ', /not valid JSON/],
      [{ asyncapi: '2.0.0' }, /neither an "openapi" version/],
      ['just words', /not an object/],
    ];
    for (const [doc, message] of cases) {
      const r = await postSpec(app, 'strict', doc);
      assertError(r, 400, 'validation_error');
      const all = [
        r.body.error.message,
        ...r.body.error.details.map((d: { message: string }) => d.message),
      ].join('\n');
      assert.match(all, message, r.text);
    }
    assertError(await postSpec(app, 'strict', '   '), 400, 'validation_error');
    assert.equal((await call(app, 'GET', '/endpoints/strict/specs')).body.data.title, 'Users');
  } finally {
    await app.stop();
  }
});

test('external $refs are refused without being fetched; internal ones resolve', async () => {
  let connections = 0;
  const server = createServer((_q, s) => s.end('{"type":"string"}'));
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const app = await startApp();
  try {
    await createEndpoint(app, 'refs');
    for (const ref of [`http://127.0.0.1:${port}/schema.json`, 'file:///etc/passwd', 'other.yaml#/Pet']) {
      const doc = {
        openapi: '3.0.3',
        info: { title: 'x', version: '1' },
        paths: {
          '/a': {
            get: {
              responses: {
                '200': { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } },
              },
            },
          },
        },
      };
      const r = await postSpec(app, 'refs', doc);
      assertError(r, 400, 'validation_error');
      assert.deepEqual(r.body.error.details, [
        {
          path: '/paths/~1a/get/responses/200/content/application~1json/schema/$ref',
          message: 'External reference: not resolved',
          received: JSON.stringify(ref),
        },
      ]);
    }
    assert.equal(connections, 0);
  } finally {
    await app.stop();
    server.close();
  }
});

test('OAS_SPEC_LIMIT: limit − 1 and limit bytes are taken, limit + 1 is 413 (body and multipart)', async () => {
  const limit = 4096;
  const app = await startApp({ oasSpecLimit: limit });
  try {
    await createEndpoint(app, 'sized');
    const base = JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'S', version: '1' },
      paths: { '/a': { get: { responses: { '204': { description: 'none' } } } } },
    });
    assert.ok(base.length < limit);
    const sized = (n: number): string => base + ' '.repeat(n - base.length);
    for (const n of [limit - 1, limit]) {
      const r = await postSpec(app, 'sized', sized(n), { contentType: 'application/json' });
      assert.equal(r.status, 202, `${n}: ${r.text}`);
      await waitForJob(app, 'sized', r.body.jobId);
      const m = await postSpecMultipart(app, 'sized', sized(n), {}, 'openapi.json');
      assert.equal(m.status, 202, `${n} multipart: ${m.text}`);
      await waitForJob(app, 'sized', m.body.jobId);
    }
    assertError(
      await postSpec(app, 'sized', sized(limit + 1), { contentType: 'application/json' }),
      413,
      'payload_too_large',
    );
    assertError(
      await postSpecMultipart(app, 'sized', sized(limit + 1), {}, 'openapi.json'),
      413,
      'payload_too_large',
    );
  } finally {
    await app.stop();
  }
});

test('the default OAS_SPEC_LIMIT is 16 MiB: a document of 16 MiB is taken, one of 16 MiB + 1 byte is 413 in the error shape', async () => {
  const app = await startApp();
  try {
    assert.equal(testConfig().oasSpecLimit, 16 * 1024 * 1024);
    await createEndpoint(app, 'big');
    const base = JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'B', version: '1' },
      paths: { '/a': { get: { responses: { '204': { description: 'none' } } } } },
    });
    const at = base + ' '.repeat(16 * 1024 * 1024 - base.length);
    const ok = await postSpec(app, 'big', at, { contentType: 'application/json' });
    assert.equal(ok.status, 202, ok.text);
    await waitForJob(app, 'big', ok.body.jobId);
    const over = at + ' ';
    const r = await postSpec(app, 'big', over, { contentType: 'application/json' });
    assertError(r, 413, 'payload_too_large');
    assert.equal(typeof r.body.error.message, 'string');
    assertError(await postSpecMultipart(app, 'big', over, {}, 'openapi.json'), 413, 'payload_too_large');
  } finally {
    await app.stop();
  }
});

test('access and plans: scoped keys, unknown endpoints and jobs, the echo endpoint, a plan without OpenAPI', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'mine');
    await createEndpoint(app, 'theirs');
    const key = `Bearer ${await scopedKey(app, 'mine')}`;
    const job = await uploadSpec(app, 'mine', PETSTORE_30_YAML, { key });
    assert.equal((await call(app, 'GET', '/endpoints/mine/specs', undefined, key)).status, 200);
    assertError(await postSpec(app, 'theirs', PETSTORE_30_YAML, { key }), 403, 'forbidden');
    assertError(await call(app, 'GET', '/endpoints/theirs/specs', undefined, key), 403, 'forbidden');
    assertError(await call(app, 'GET', `/endpoints/theirs/jobs/${job.body.jobId}`), 404, 'not_found');
    assertError(await call(app, 'GET', '/endpoints/mine/jobs/nope'), 404, 'not_found');
    assertError(await postSpec(app, 'ghost', PETSTORE_30_YAML), 404, 'not_found');
    assertError(await postSpec(app, 'echo', PETSTORE_30_YAML), 403, 'forbidden');
    assertError(await call(app, 'GET', '/endpoints/mine/specs?x=1'), 400, 'validation_error');

    const patched = await call(app, 'PATCH', '/endpoints/theirs/settings', { plan: 'free' });
    assert.equal(patched.status, 200, patched.text);
    const refused = await postSpec(app, 'theirs', PETSTORE_30_YAML);
    assertError(refused, 403, 'plan_limit');
  } finally {
    await app.stop();
  }
});
