/**
 * The modes of contract checking (SPEC §7; src/mock/contract-step.ts), through the app and on the step
 * itself: `off` sets no lists; `report` answers as before and the outcome carries `validation` and
 * `responseValidation`; `enforce` answers a broken request 422 / 401 / 415 in the one error shape,
 * recorded `rejected`, before any rule runs. A rule that drifts from the document has a non-empty
 * `responseValidation`, a generated answer an empty one; violations are counted in /metrics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyBaseLogger } from 'fastify';
import { ADMIN_KEY } from '../helpers/app.js';
import { useApp } from '../helpers/endpoint.js';
import { call, createEndpoint, createRule } from '../helpers/api-helpers.js';
import { uploadSpec } from './oas-helpers.js';
import { req } from '../mock/rule-helpers.js';
import { withContract } from '../../src/mock/contract-step.js';
import { effectiveSettings, type Endpoint, type MockStep } from '../../src/mock/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import type { Outcome } from '../../src/endpoint/index.js';
import type { Plan } from '../../src/plans.js';
import type { EndpointRecord, Store } from '../../src/store/index.js';
import { testConfig } from '../../src/config.js';

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
    '/items': {
      post: {
        security: [{ key: [] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['name'] } } },
        },
        responses: { '201': { description: 'created' } },
      },
    },
  },
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
};

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
const ruled = {
  method: 'GET',
  conditions: [{ type: 'path', operator: 'equals', value: '/items/abc' }],
  action: { type: 'mock', status: 200, body: 'the rule answered' },
};
const post = {
  method: 'POST',
  conditions: [{ type: 'path', operator: 'equals', value: '/items' }],
  action: { type: 'mock', status: 201, body: '' },
};

async function setMode(app: Parameters<typeof call>[0], ep: string, mode: string) {
  const r = await call(app, 'PATCH', `/endpoints/${ep}/settings`, { openapi: { validation: mode } });
  assert.equal(r.status, 200, r.text);
}

async function send(
  app: Parameters<typeof call>[0],
  method: string,
  path: string,
  headers = {},
  payload?: string,
) {
  const r = await app.inject({
    method: method as 'GET',
    url: `/e/shop${path}`,
    headers,
    ...(payload ? { payload } : {}),
  });
  return {
    status: r.statusCode,
    text: r.body,
    json: () => r.json<{ error: { code: string; details?: unknown[] } }>(),
  };
}

test('enforce: 422, 401 and 415 in the one error shape, before any rule; report and off answer as before', async (t) => {
  const app = await useApp(t);
  await createEndpoint(app, 'shop');
  await uploadSpec(app, 'shop', DOC);
  for (const r of [ruled, post, drift]) await createRule(app, 'shop', r);

  // report (the default): the rule answers a request that breaks the contract.
  assert.equal((await send(app, 'GET', '/items/abc')).text, 'the rule answered');

  await setMode(app, 'shop', 'enforce');
  const bad = await send(app, 'GET', '/items/abc');
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.json(), {
    error: {
      code: 'contract_violation',
      message: "The request breaks the endpoint's OpenAPI document.",
      details: [{ in: 'path', path: 'id', message: 'must be integer' }],
    },
  });
  const json = { 'content-type': 'application/json' };
  const noKey = await send(app, 'POST', '/items', json, '{"name":"a"}');
  assert.equal(noKey.status, 401);
  assert.equal(noKey.json().error.code, 'contract_unauthorized');
  assert.deepEqual(noKey.json().error.details, [
    {
      in: 'security',
      path: 'key',
      message: 'No credential the operation accepts: it wants key (the header X-Key).',
    },
  ]);
  const wrongType = await send(
    app,
    'POST',
    '/items',
    { 'x-key': 'k', 'content-type': 'text/plain' },
    'name=a',
  );
  assert.equal(wrongType.status, 415);
  assert.equal(wrongType.json().error.code, 'unsupported_media_type');
  // Security and a missing field: not only security, so 422, both listed.
  const both = await send(app, 'POST', '/items', json, '{}');
  assert.equal(both.status, 422);
  assert.deepEqual(
    both.json().error.details?.map((d) => (d as { in: string }).in),
    ['security', 'body'],
  );
  // A request that keeps the contract reaches the rules; one the document does not describe too.
  assert.equal((await send(app, 'POST', '/items', { ...json, 'x-key': 'k' }, '{"name":"a"}')).status, 201);
  assert.equal((await send(app, 'GET', '/items/7')).text, '{"id":7}');
  assert.match((await send(app, 'GET', '/elsewhere')).text, /has nothing configured/);

  const h = await call(app, 'GET', '/endpoints/shop/requests?limit=10');
  const rows = (h.body.data as { path: string; behavior: string; status: number }[]).map(
    (e) => `${e.path} ${e.behavior} ${e.status}`,
  );
  assert.deepEqual(rows.slice(1, 7).reverse(), [
    '/items/abc rejected 422',
    '/items rejected 401',
    '/items rejected 415',
    '/items rejected 422',
    '/items mock-rule 201',
    '/items/7 mock-rule 200',
  ]);

  await setMode(app, 'shop', 'off');
  assert.equal((await send(app, 'GET', '/items/abc')).text, 'the rule answered');
  assert.equal((await send(app, 'POST', '/items', json, '{}')).status, 201);
});

test('violations are counted in mockingbird_contract_violations_total by direction', async (t) => {
  const app = await useApp(t);
  await createEndpoint(app, 'shop');
  await uploadSpec(app, 'shop', DOC);
  await createRule(app, 'shop', drift);
  await send(app, 'GET', '/items/abc'); // one request violation (then generated: keeps the contract)
  await send(app, 'GET', '/items/7'); // the rule drifts: one response violation
  await send(app, 'GET', '/items/8'); // generated: none
  const r = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  assert.match(r.body, /^mockingbird_contract_violations_total\{direction="request"\} 1$/m);
  assert.match(r.body, /^mockingbird_contract_violations_total\{direction="response"\} 1$/m);
});

test("the API's openapi.json describes the setting", async (t) => {
  const app = await useApp(t);
  const doc = JSON.stringify((await app.inject({ url: '/api/v2/openapi.json' })).json());
  assert.match(doc, /"openapi":\{[^{}]*"properties":\{"validation":\{[^]*?"const":"enforce"/);
});

// The step itself: what it sets on the outcome, by mode.

const record: EndpointRecord = { name: 'shop', createdAt: 0, settings: {} };

function stepFor(mode: string, spec: unknown, counted: ReturnType<typeof createMetrics>) {
  const store = {
    getSpec: () =>
      Promise.resolve(
        spec === undefined
          ? undefined
          : { type: 'openapi', document: JSON.stringify(spec), intelligenceMock: false },
      ),
  } as unknown as Store;
  const log = { warn() {}, error() {} } as unknown as FastifyBaseLogger;
  const ctx = { config: testConfig(), store, log, metrics: counted };
  const endpoint: Endpoint = {
    record: { ...record },
    settings: effectiveSettings({ openapi: { validation: mode } }, 'unlimited'),
    plan: { openapi: true } as Plan,
  };
  let ran = 0;
  const inner: MockStep = () => {
    ran++;
    return {
      behavior: 'mock-rule',
      answer: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"id":1}' },
    };
  };
  return { step: withContract(ctx, inner), endpoint, ran: () => ran };
}

async function run(step: MockStep, endpoint: Endpoint, path: string): Promise<Outcome | undefined> {
  return await step({ endpoint, request: await req('GET', path) });
}

test('the step: off sets nothing; report sets both lists; enforce refuses without running the chain', async () => {
  const metrics = createMetrics();
  const off = stepFor('off', DOC, metrics);
  const o = await run(off.step, off.endpoint, '/items/x');
  assert.equal(o?.validation, undefined);
  assert.equal(o?.responseValidation, undefined);

  const report = stepFor('report', DOC, metrics);
  const r1 = await run(report.step, report.endpoint, '/items/x');
  assert.deepEqual(r1?.validation, [{ in: 'path', path: 'id', message: 'must be integer' }]);
  assert.deepEqual(r1?.responseValidation, [{ in: 'body', path: '/name', message: 'is required' }]);
  assert.equal(r1?.behavior, 'mock-rule');
  // Once the spec is read, the step answers without waiting a turn.
  const r2 = report.step({ endpoint: report.endpoint, request: await req('GET', '/items/2') });
  assert.ok(!(r2 instanceof Promise));
  assert.deepEqual(r2?.validation, []);
  // A request no operation describes has no lists.
  const r3 = await run(report.step, report.endpoint, '/other');
  assert.equal(r3?.validation, undefined);

  const enforce = stepFor('enforce', DOC, metrics);
  const e = await run(enforce.step, enforce.endpoint, '/items/x');
  assert.equal(e?.answer.status, 422);
  assert.equal(e?.behavior, 'rejected');
  assert.equal(e?.responseValidation, undefined);
  assert.equal(enforce.ran(), 0);
  assert.equal((await run(enforce.step, enforce.endpoint, '/items/3'))?.answer.status, 200);
  assert.equal(enforce.ran(), 1);
});

test('the step: an endpoint without a document runs the chain with no lists, at once after the first request', async () => {
  const none = stepFor('report', undefined, createMetrics());
  const first = await run(none.step, none.endpoint, '/items/x');
  assert.equal(first?.validation, undefined);
  const second = none.step({ endpoint: none.endpoint, request: await req('GET', '/items/x') });
  assert.ok(!(second instanceof Promise), 'no promise once the endpoint is known to have no document');
  assert.equal(none.ran(), 2);
});

test('the step: a fault replaces the answer, so only the request is checked', async () => {
  const metrics = createMetrics();
  const { endpoint } = stepFor('report', DOC, metrics);
  const faulty: MockStep = () => ({
    behavior: 'mock-rule',
    answer: { status: 500, headers: {}, body: '', fault: 'connection_reset' },
  });
  const store = {
    getSpec: () =>
      Promise.resolve({ type: 'openapi', document: JSON.stringify(DOC), intelligenceMock: false }),
  };
  const step = withContract(
    { config: testConfig(), store: store as unknown as Store, log: {} as FastifyBaseLogger, metrics },
    faulty,
  );
  const o = await run(step, endpoint, '/items/1');
  assert.deepEqual(o?.validation, []);
  assert.equal(o?.responseValidation, undefined);
});

test('the step: a document that cannot be read is logged and the chain answers without lists', async () => {
  const warned: unknown[] = [];
  const { endpoint } = stepFor('enforce', DOC, createMetrics());
  const store = { getSpec: () => Promise.reject(new Error('disk')) } as unknown as Store;
  const log = { warn: (o: unknown) => warned.push(o), error() {} } as unknown as FastifyBaseLogger;
  const inner: MockStep = () => ({ behavior: 'default', answer: { status: 200, headers: {}, body: 'ok' } });
  const o = await run(
    withContract({ config: testConfig(), store, log, metrics: createMetrics() }, inner),
    endpoint,
    '/items/x',
  );
  assert.equal(o?.answer.body, 'ok');
  assert.equal(o?.validation, undefined);
  assert.equal(warned.length, 1);
});
