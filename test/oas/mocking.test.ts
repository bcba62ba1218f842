/**
 * OpenAPI mocking in the pipeline (SPEC §5, §7): an unmatched request that fits an operation gets its
 * lowest 2xx response (or the `Prefer`red one) with the example, else generated data; rules come
 * first; no operation, no spec, or a plan without OpenAPI falls through to the default response.
 * Recorded with behavior `oas`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp } from '../helpers/app.js';
import { call, createEndpoint, createRule, mockRule } from '../helpers/api-helpers.js';
import { PETSTORE_30_YAML, STORE_20, USERS_31 } from './fixtures.js';
import { hit, uploadSpec } from './oas-helpers.js';

const DEFAULT = /has nothing configured for/;

test('a spec beats the default response, and falls through to it when no operation fits or no spec is left', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'pets');
    assert.match((await hit(app, 'pets', 'GET', '/pets')).text, DEFAULT);
    await uploadSpec(app, 'pets', PETSTORE_30_YAML);

    const list = await hit(app, 'pets', 'GET', '/pets?limit=5');
    assert.equal(list.status, 200);
    assert.match(String(list.headers['content-type']), /^application\/json/);
    assert.deepEqual(list.body, [{ id: 1, name: 'Rex', tag: 'dog' }]);
    assert.equal(list.headers['x-next'], '/pets?page=2');

    const created = await hit(app, 'pets', 'POST', '/pets');
    assert.equal(created.status, 201);
    assert.equal(created.text, '');

    // No operation for the method, or for the path: the default response.
    assert.match((await hit(app, 'pets', 'DELETE', '/pets')).text, DEFAULT);
    assert.match((await hit(app, 'pets', 'GET', '/cats')).text, DEFAULT);
    assert.match((await hit(app, 'pets', 'GET', '/pets/1/photos')).text, DEFAULT);

    // History: behavior oas, no rule.
    const h = await call(app, 'GET', '/endpoints/pets/requests?limit=10');
    const behaviors = h.body.data.map((e: { path: string; behavior: string }) => `${e.path} ${e.behavior}`);
    assert.deepEqual(behaviors.slice(0, 5), [
      '/pets/1/photos default',
      '/cats default',
      '/pets default',
      '/pets oas',
      '/pets?limit=5 oas',
    ]);
    assert.equal(h.body.data[3].rule.matched, false);

    assert.equal((await call(app, 'DELETE', '/endpoints/pets/specs')).status, 200);
    assert.match((await hit(app, 'pets', 'GET', '/pets')).text, DEFAULT);
  } finally {
    await app.stop();
  }
});

test('rules answer before the spec; a plan without OpenAPI skips it', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'ruled');
    await uploadSpec(app, 'ruled', PETSTORE_30_YAML);
    await createRule(app, 'ruled', mockRule('/pets', 203));
    const r = await hit(app, 'ruled', 'GET', '/pets');
    assert.equal(r.status, 203);
    assert.equal(r.text, 'rule /pets');
    assert.equal((await hit(app, 'ruled', 'GET', '/pets/9')).status, 200);
    assert.equal((await call(app, 'PATCH', '/endpoints/ruled/settings', { plan: 'free' })).status, 200);
    assert.match((await hit(app, 'ruled', 'GET', '/pets/9')).text, DEFAULT);
  } finally {
    await app.stop();
  }
});

test('path templates, concrete paths first, the servers base path, Prefer code and example, Accept', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'prefs');
    await uploadSpec(app, 'prefs', PETSTORE_30_YAML);

    const mine = await hit(app, 'prefs', 'GET', '/pets/mine');
    assert.equal(mine.text, 'just mine');
    assert.match(String(mine.headers['content-type']), /^text\/plain/);
    assert.deepEqual((await hit(app, 'prefs', 'GET', '/v1/pets')).body, [{ id: 1, name: 'Rex', tag: 'dog' }]);

    // Named examples: the first by default, another by name.
    assert.deepEqual((await hit(app, 'prefs', 'GET', '/pets/7')).body, { id: 2, name: 'Tom', tag: 'cat' });
    const dog = await hit(app, 'prefs', 'GET', '/pets/7', { prefer: 'example=dog' });
    assert.deepEqual(dog.body, { id: 3, name: 'Rex', tag: 'dog' });

    const missing = await hit(app, 'prefs', 'GET', '/pets/7', { prefer: 'code=404' });
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { code: 404, message: 'no such pet' });
    const both = await hit(app, 'prefs', 'GET', '/pets/7', { prefer: 'code=200, example=dog' });
    assert.deepEqual([both.status, both.body.name], [200, 'Rex']);

    // `default` answers a code it does not list; a code nothing answers falls back to the lowest 2xx.
    const teapot = await hit(app, 'prefs', 'GET', '/pets', { prefer: 'code=503' });
    assert.equal(teapot.status, 503);
    const unlisted = await hit(app, 'prefs', 'POST', '/pets', { prefer: 'code=418' });
    assert.equal(unlisted.status, 201);
    const unknownExample = await hit(app, 'prefs', 'GET', '/pets/7', { prefer: 'example=bird' });
    assert.equal(unknownExample.status, 200);

    const xml = await hit(app, 'prefs', 'GET', '/pets/7', { accept: 'application/xml' });
    assert.match(String(xml.headers['content-type']), /^application\/xml/);

    const page = await call(app, 'GET', '/endpoints/prefs/requests?limit=3&mode=verbose');
    const problems = page.body.data.flatMap((e: { problems?: string[] }) => e.problems ?? []);
    assert.ok(
      problems.some((p: string) => /example=bird/.test(p)),
      JSON.stringify(page.body.data),
    );
    assert.ok(
      problems.some((p: string) => /code=418/.test(p)),
      JSON.stringify(page.body.data),
    );
  } finally {
    await app.stop();
  }
});

const isoDate = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test('OpenAPI 3.1: data generated from the schema (formats, field names, required, nothing undeclared)', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'users');
    await uploadSpec(app, 'users', USERS_31);
    const declared = Object.keys(USERS_31.components.schemas.User.properties);
    for (let i = 0; i < 20; i++) {
      const r = await hit(app, 'users', 'GET', `/users/u${i}`);
      assert.equal(r.status, 200, r.text);
      const u = r.body;
      for (const k of ['id', 'email', 'firstName', 'createdAt', 'roles'])
        assert.ok(k in u, `${k} missing: ${r.text}`);
      for (const k of Object.keys(u)) assert.ok(declared.includes(k), `undeclared ${k}`);
      assert.equal(u.password, undefined, 'write-only properties are not answered');
      assert.match(u.id, uuid);
      assert.match(u.email, /^[^@\s]+@[^@\s]+\.[a-z]+$/i);
      assert.match(u.createdAt, isoDate);
      assert.equal(typeof u.firstName, 'string');
      assert.ok(u.firstName.length > 0);
      if (u.website !== undefined) assert.match(u.website, /^https?:\/\//);
      if (u.age !== undefined) assert.ok(Number.isInteger(u.age) && u.age >= 18 && u.age <= 120);
      assert.ok(u.roles.length >= 1 && u.roles.length <= 3);
      for (const role of u.roles) assert.ok(['admin', 'user'].includes(role));
      if (u.address !== undefined) {
        assert.equal(typeof u.address.city, 'string');
        if (u.address.zip !== undefined) assert.match(u.address.zip, /^[0-9]{5}$/);
      }
    }
    const file = await hit(app, 'users', 'GET', '/files/report.pdf');
    assert.equal(file.status, 200);
    assert.deepEqual(Object.keys(file.body), ['size']);
    assert.ok(file.body.size >= 1 && file.body.size <= 10);
  } finally {
    await app.stop();
  }
});

function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (v !== null && typeof v === 'object') return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

test('a recursive schema gives a bounded answer', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'trees');
    await uploadSpec(app, 'trees', USERS_31);
    for (let i = 0; i < 5; i++) {
      const r = await hit(app, 'trees', 'GET', '/tree');
      assert.equal(r.status, 200);
      assert.ok(r.text.length < 200_000, `${r.text.length} bytes`);
      assert.ok(depthOf(r.body) <= 30, `depth ${depthOf(r.body)}`);
      assert.equal(typeof r.body.name, 'string');
      assert.ok(Array.isArray(r.body.children));
    }
  } finally {
    await app.stop();
  }
});

test('Swagger 2.0: basePath or not, definitions, headers, examples by media type, 204', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'orders');
    await uploadSpec(app, 'orders', STORE_20);
    for (const path of ['/api/orders/5', '/orders/5']) {
      const r = await hit(app, 'orders', 'GET', path);
      assert.equal(r.status, 200, r.text);
      assert.match(String(r.headers['content-type']), /^application\/json/);
      assert.ok(Number.isInteger(r.body.id));
      assert.ok(['placed', 'shipped'].includes(r.body.status));
      assert.match(r.body.contactEmail, /@/);
      assert.equal(r.headers['x-rate-limit'], '5');
    }
    const missing = await hit(app, 'orders', 'GET', '/orders/5', { prefer: 'code=404' });
    assert.deepEqual([missing.status, missing.body], [404, { error: 'no order' }]);
    const gone = await hit(app, 'orders', 'DELETE', '/api/orders/5');
    assert.deepEqual([gone.status, gone.text], [204, '']);
  } finally {
    await app.stop();
  }
});

test('intelligenceMock: generated data even where the document has an example', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'smart');
    await uploadSpec(app, 'smart', PETSTORE_30_YAML, { query: '?intelligenceMock=true' });
    const r = await hit(app, 'smart', 'GET', '/pets/7');
    assert.equal(r.status, 200);
    assert.ok(Number.isInteger(r.body.id));
    assert.equal(typeof r.body.name, 'string');
    assert.notDeepEqual(r.body, { id: 2, name: 'Tom', tag: 'cat' });
    // A named example asked for by name is still answered.
    assert.deepEqual((await hit(app, 'smart', 'GET', '/pets/7', { prefer: 'example=dog' })).body, {
      id: 3,
      name: 'Rex',
      tag: 'dog',
    });
  } finally {
    await app.stop();
  }
});
