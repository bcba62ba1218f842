/**
 * @runs-alone: it times the event loop, so scripts/run-tests.mjs runs it after the other files, by itself.
 * Stops: an uploaded document or a schema holding the event loop or the memory (SPEC §12). Validating
 * a 5 MB document on the main thread held it 3.3 s (its YAML form 7 s to parse): it runs in a worker;
 * compiling 8,000 operations is sliced. Generated bodies are bounded in depth, items, values and
 * string length whatever the schema asks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startApp } from '../helpers/app.js';
import { createEndpoint } from '../helpers/api-helpers.js';
import {
  generate,
  OAS_GENERATE_DEPTH,
  OAS_GENERATE_ITEMS,
  OAS_GENERATE_NODES,
  OAS_GENERATE_STRING,
} from '../../src/oas/index.js';
import { fakerOf, loadFakeData } from '../../src/template/index.js';
import { bigSpec } from './big-spec.js';
import { hit, postSpec, waitForJob } from './oas-helpers.js';

test('a 5 MB document of 8,000 operations is validated and compiled without holding the event loop', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'big');
    const text = JSON.stringify(bigSpec(4000));
    assert.ok(text.length > 4_500_000 && text.length <= 5 * 1024 * 1024, `${text.length} bytes`);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const r = await postSpec(app, 'big', text, { contentType: 'application/json' });
    assert.equal(r.status, 202, r.text);
    const job = await waitForJob(app, 'big', r.body.jobId);
    assert.equal(job.body.status, 'COMPLETED', job.text);
    assert.equal(job.body.result.operations.length, 8000);
    const first = await hit(app, 'big', 'GET', '/things3999/a/parts/b');
    delay.disable();
    assert.equal(first.status, 200);
    assert.match(first.body.id, /^[0-9a-f-]{36}$/);
    const maxMs = delay.max / 1e6;
    // Unsliced, this held the loop 1.8 s (rules) and 3.3 s (a 5 MB spec) on an idle machine; 1 s leaves
    // room for a loaded CI machine while still telling the two apart.
    assert.ok(maxMs < 1000, `the event loop was held ${maxMs.toFixed(0)} ms at once`);
  } finally {
    await app.stop();
  }
});

async function gen(schema: unknown, root: unknown = {}): Promise<unknown> {
  await loadFakeData();
  return generate(schema, { faker: fakerOf('en')!, root, useExamples: true });
}

function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (v !== null && typeof v === 'object') return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

function count(v: unknown): number {
  if (Array.isArray(v)) return 1 + v.reduce((n: number, x) => n + count(x), 0);
  if (v !== null && typeof v === 'object')
    return 1 + Object.values(v).reduce((n: number, x) => n + count(x), 0);
  return 1;
}

test('arrays: at most OAS_GENERATE_ITEMS items whatever minItems says; nested arrays within OAS_GENERATE_NODES', async () => {
  const many = (await gen({ type: 'array', minItems: 1_000_000, items: { type: 'integer' } })) as unknown[];
  assert.equal(many.length, OAS_GENERATE_ITEMS);
  let nested: unknown = { type: 'string' };
  for (let i = 0; i < 8; i++) nested = { type: 'array', minItems: 10, items: nested };
  const v = await gen(nested);
  // Past the budget of values, arrays are left empty.
  assert.ok(count(v) <= 2 * OAS_GENERATE_NODES + OAS_GENERATE_ITEMS, `${count(v)} values`);
});

test('recursive schemas end: optional recursion stops at OAS_GENERATE_DEPTH, required recursion at twice that', async () => {
  const root = {
    components: {
      schemas: {
        Tree: {
          type: 'object',
          required: ['kids'],
          properties: { kids: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } },
        },
        Chain: {
          type: 'object',
          required: ['next'],
          properties: { next: { $ref: '#/components/schemas/Chain' } },
        },
        Self: { $ref: '#/components/schemas/Self' },
      },
    },
  };
  for (const name of ['Tree', 'Chain']) {
    const v = await gen({ $ref: `#/components/schemas/${name}` }, root);
    assert.ok(depthOf(v) <= 2 * OAS_GENERATE_DEPTH + 2, `${name}: depth ${depthOf(v)}`);
  }
  assert.equal(typeof (await gen({ $ref: '#/components/schemas/Self' }, root)), 'string');
});

test('strings: formats, field names, bounds; objects: required kept, nothing undeclared; allOf, oneOf, const', async () => {
  const long = (await gen({ type: 'string', minLength: 10_000_000 })) as string;
  assert.equal(long.length, OAS_GENERATE_STRING);
  assert.equal(((await gen({ type: 'string', maxLength: 3 })) as string).length <= 3, true);
  assert.match((await gen({ type: 'string', format: 'email' })) as string, /@/);
  assert.match((await gen({ type: 'string', format: 'date' })) as string, /^\d{4}-\d\d-\d\d$/);
  assert.match((await gen({ type: 'string', format: 'ipv4' })) as string, /^\d+\.\d+\.\d+\.\d+$/);
  const o = (await gen({
    allOf: [
      { type: 'object', required: ['contactEmail'], properties: { contactEmail: { type: 'string' } } },
      { required: ['count', 'label'], properties: { count: { type: 'integer', minimum: 3, maximum: 3 } } },
    ],
    properties: { kind: { oneOf: [{ type: 'null' }, { const: 'fixed' }] } },
  })) as Record<string, unknown>;
  assert.deepEqual(Object.keys(o).sort(), ['contactEmail', 'count', 'kind', 'label']);
  assert.match(o['contactEmail'] as string, /@/);
  assert.equal(o['count'], 3);
  assert.equal(o['kind'], 'fixed');
  assert.equal(typeof o['label'], 'string');
  assert.equal(await gen({ type: 'integer', example: 42 }), 42);
  assert.equal(
    Object.getPrototypeOf(await gen({ properties: { __proto__: { const: 1 } } })),
    Object.prototype,
  );
});
