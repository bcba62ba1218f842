/**
 * @runs-alone: it times the event loop, so scripts/run-tests.mjs runs it after the other files, by itself.
 * Stops: OpenAPI schema composition that fans out (issue 30, item 1). A 2 KB document of 20 levels of
 * `allOf: [A(n+1), A(n+1)]` was expanded at every request, 2^20 copies of the leaf: 6.1–6.4 s a
 * request, for everyone. Composition is now expanded once, when the document is uploaded (in the
 * validation worker) and compiled, within OAS_SCHEMA_BUDGET work units; past it the upload is a 400
 * naming the schema, and a request walks the expanded schema only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { generate, schemaUnitsOf } from '../../src/oas/index.js';
import { SchemaBudgetError, SchemaExpander } from '../../src/oas/flatten.js';
import { fakerOf, loadFakeData } from '../../src/template/index.js';
import { adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { createEndpoint } from '../helpers/api-helpers.js';
import { hit, postSpec, uploadSpec } from './oas-helpers.js';

/** `levels` levels of `allOf: [A(n+1), A(n+1)]` over an object with one string property, as GET /a's answer. */
function fanOut(levels: number): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (let n = 0; n < levels; n++) {
    const next = { $ref: `#/components/schemas/A${n + 1}` };
    schemas[`A${n}`] = { allOf: [next, next] };
  }
  schemas[`A${levels}`] = { type: 'object', required: ['x'], properties: { x: { type: 'string' } } };
  const schema = { $ref: '#/components/schemas/A0' };
  return {
    openapi: '3.0.3',
    info: { title: 'Fan-out', version: '1' },
    paths: {
      '/a': {
        get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } } },
      },
    },
    components: { schemas },
  };
}

/** Units the document's schemas cost an upload (measured with a budget that cannot run out). */
function unitsOf(doc: Record<string, unknown>): Promise<number> {
  return schemaUnitsOf(doc, Number.MAX_SAFE_INTEGER);
}

/** GET `path` from the loopback address 127.0.0.2 (another client than the uploader's 127.0.0.1). */
function probe(port: number, path: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress: '127.0.0.2' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('allOf fan-out: the 2 KB, 20-level document is refused at upload at once, naming the schema; a client on 127.0.0.2 is served meanwhile', async () => {
  const app = await startApp({}, { listen: true });
  try {
    await createEndpoint(app, 'fan');
    const text = JSON.stringify(fanOut(20));
    assert.ok(text.length < 2100, `${text.length} bytes`);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    const upload = fetch(`${app.url}/api/v2/endpoints/fan/specs`, {
      method: 'POST',
      headers: { ...adminAuth, 'content-type': 'application/json' },
      body: text,
    });
    const probes = [];
    for (let i = 0; i < 5; i++) probes.push(await probe(app.port, `/e/echo/probe-${i}`));
    const res = await upload;
    const took = performance.now() - started;
    delay.disable();
    const body = (await res.json()) as {
      error: { code: string; message: string; details: { path: string; message: string }[] };
    };
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(body.error.code, 'validation_error');
    assert.match(body.error.message, /OAS_SCHEMA_BUDGET \(1000000 units\) at \/components\/schemas\/A\d+/);
    assert.match(body.error.details[0]!.path, /^\/components\/schemas\/A\d+$/);
    assert.ok(took < 5000, `refused in ${took.toFixed(0)} ms`);
    for (const p of probes) {
      assert.equal(p.status, 200);
      assert.ok(p.ms < 1000, `a probe from 127.0.0.2 waited ${p.ms.toFixed(0)} ms`);
    }
    assert.ok(delay.max / 1e6 < 500, `the event loop was held ${(delay.max / 1e6).toFixed(0)} ms`);
    const spec = await hit(app, 'fan', 'GET', '/a');
    assert.doesNotMatch(spec.text, /"x"/, 'nothing of the refused document is served');
  } finally {
    await app.stop();
  }
});

test('the same fan-out in a request body only, which no answer generates, is refused at upload too', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'fan');
    const doc = fanOut(20) as { paths: Record<string, Record<string, unknown>> };
    const body = { content: { 'application/json': { schema: { $ref: '#/components/schemas/A0' } } } };
    doc.paths['/a'] = {
      post: { requestBody: body, responses: { '204': { description: 'stored' } } },
    };
    const started = performance.now();
    const r = await postSpec(app, 'fan', doc);
    const took = performance.now() - started;
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.error.message, /OAS_SCHEMA_BUDGET \(1000000 units\) at \/components\/schemas\/A\d+/);
    // The parser alone took 8 s over this document.
    assert.ok(took < 5000, `refused in ${took.toFixed(0)} ms`);
  } finally {
    await app.stop();
  }
});

test('OAS_SCHEMA_BUDGET: a document costing limit − 1 or limit units is taken and served, limit + 1 is refused', async () => {
  await loadFakeData();
  const doc = fanOut(8);
  const units = await unitsOf(doc);
  for (const [budget, taken] of [
    [units + 1, true],
    [units, true],
    [units - 1, false],
  ] as const) {
    const app = await startApp({ oasSchemaBudget: budget });
    try {
      await createEndpoint(app, 'fan');
      if (taken) {
        await uploadSpec(app, 'fan', doc);
        const r = await hit(app, 'fan', 'GET', '/a');
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(Object.keys(r.body as object), ['x']);
      } else {
        const r = await postSpec(app, 'fan', doc);
        assert.equal(r.status, 400, r.text);
        assert.match(r.body.error.message, new RegExp(`OAS_SCHEMA_BUDGET \\(${budget} units\\)`));
      }
    } finally {
      await app.stop();
    }
  }
});

/** Stores the 20-level document as an upload's job stores it, without the parser's validation (8 s for it). */
async function storeFanOut(app: TestApp): Promise<void> {
  await createEndpoint(app, 'fan');
  const document = JSON.stringify(fanOut(20));
  await app.ctx.store.putSpec({
    endpoint: 'fan',
    type: 'openapi',
    jobId: 'direct',
    intelligenceMock: false,
    title: 'Fan-out',
    version: '1',
    specVersion: '3.0.3',
    operations: [{ method: 'GET', path: '/a' }],
    files: [],
    size: document.length,
    createdAt: Date.now(),
    document,
  });
  app.ctx.endpoints.invalidate('fan');
}

test('a request walks the expanded schema: the 20-level document, stored under a larger budget, answers in milliseconds', async () => {
  const app = await startApp({ oasSchemaBudget: 100_000_000 });
  try {
    await storeFanOut(app);
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const r = await hit(app, 'fan', 'GET', '/a');
      const ms = performance.now() - started;
      assert.equal(r.status, 200, r.text);
      assert.equal(typeof r.body.x, 'string');
      // It was 6.1–6.4 s when the composition was expanded per request.
      assert.ok(ms < 500, `answered in ${ms.toFixed(0)} ms`);
    }
  } finally {
    await app.stop();
  }
});

test('a document stored under a larger budget than today is not served (the default response answers), never expanded past it', async () => {
  const app = await startApp();
  try {
    await storeFanOut(app);
    const started = performance.now();
    const r = await hit(app, 'fan', 'GET', '/a');
    assert.equal(r.status, 200);
    assert.doesNotMatch(r.text, /"x"/);
    assert.ok(performance.now() - started < 500);
  } finally {
    await app.stop();
  }
});

test('composition cycles end, oneOf/anyOf take their first non-null choice, and a quadratic allOf chain runs out of budget quickly', async () => {
  await loadFakeData();
  const root = {
    components: {
      schemas: {
        A: { allOf: [{ $ref: '#/components/schemas/B' }], properties: { a: { const: 1 } } },
        B: { allOf: [{ $ref: '#/components/schemas/A' }], properties: { b: { const: 2 } } },
        C: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/C' }, { const: 'never' }] },
        D: { anyOf: [{ type: 'null' }, { properties: { d: { const: 4 } }, required: ['d'] }] },
      },
    },
  };
  const opts = { faker: fakerOf('en')!, root, useExamples: true };
  const ab = generate({ $ref: '#/components/schemas/A' }, opts) as Record<string, unknown>;
  assert.deepEqual({ a: ab['a'], b: ab['b'] }, { a: 1, b: 2 });
  assert.equal(typeof generate({ $ref: '#/components/schemas/C' }, opts), 'string');
  assert.deepEqual(generate({ $ref: '#/components/schemas/D' }, opts), { d: 4 });

  // Each link adds a property to all those below it: merging is quadratic in the chain's length.
  const chain: Record<string, unknown> = {};
  const length = 3000;
  for (let i = 0; i < length; i++)
    chain[`L${i}`] = {
      allOf: [{ $ref: `#/chain/L${i + 1}` }],
      properties: { [`p${i}`]: { type: 'integer' } },
    };
  chain[`L${length}`] = { type: 'object' };
  const started = performance.now();
  assert.throws(
    () => new SchemaExpander({ chain }, 1_000_000).expand({ $ref: '#/chain/L0' }),
    (err: unknown) => err instanceof SchemaBudgetError && /^\/chain\/L\d+$/.test(err.path),
  );
  const ms = performance.now() - started;
  assert.ok(ms < 1000, `ran out of budget in ${ms.toFixed(0)} ms`);
});

test('allOf nested 200,000 deep does not overflow the stack: past the default budget it is refused, under a larger one expanded', async () => {
  await loadFakeData();
  let s: unknown = { type: 'string', format: 'email' };
  for (let i = 0; i < 200_000; i++) s = { allOf: [s] };
  assert.throws(
    () => new SchemaExpander({}, 1_000_000).expand(s, '/deep'),
    (err: unknown) => err instanceof SchemaBudgetError && err.path.startsWith('/deep/allOf/0'),
  );
  const shape = new SchemaExpander({}, Number.MAX_SAFE_INTEGER).expand(s, '/deep');
  assert.match(generate(shape, { faker: fakerOf('en')!, root: {}, useExamples: true }) as string, /@/);
});
