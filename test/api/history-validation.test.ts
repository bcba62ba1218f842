/**
 * Contract violations from the pipeline's outcome to what the user sees (SPEC §7): a step of the
 * test's own sets `validation` / `responseValidation` as the OpenAPI check does, and the lists appear
 * on the API's entry (list and one entry), in the live `request.created` event and in HAR export;
 * `?validation=failed|passed` filters the list and the bulk delete; the API's OpenAPI document says so.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import {
  endpointLifecycle,
  targetFinder,
  type ResolvedEndpoint,
  type Step,
} from '../../src/endpoint/index.js';
import { MAX_VIOLATIONS, VIOLATIONS_TRUNCATED } from '../../src/history/index.js';
import { endpointPlane } from '../../src/serve/index.js';
import type { ContractViolation } from '../../src/store/index.js';
import { adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { api } from '../helpers/history-fixtures.js';
import { openStream } from '../helpers/sse-client.js';

const BAD: ContractViolation = { in: 'query', path: 'limit', message: 'must be integer' };
const BAD_ANSWER: ContractViolation = { in: 'body', path: '/id', message: 'must be string' };

/**
 * Stands in for the OpenAPI check: `x-check: none` (or no header) leaves the outcome unchecked,
 * `kept` sets two empty lists, `request` a request violation, `response` an answer violation, `many`
 * more violations than an entry keeps.
 */
const checkStep: Step = (x) => {
  const how = x.request.headers['x-check'];
  const answer = { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' };
  const base = { behavior: 'oas' as const, answer };
  if (how === 'kept') return { ...base, validation: [], responseValidation: [] };
  if (how === 'request') return { ...base, validation: [BAD], responseValidation: [] };
  if (how === 'response') return { ...base, validation: [], responseValidation: [BAD_ANSWER] };
  if (how === 'many')
    return { ...base, validation: Array.from({ length: 50 }, () => BAD), responseValidation: [] };
  return { ...base };
};

let app: TestApp;
let server: Server;
let port = 0;
before(async () => {
  app = await startApp({}, { listen: true });
  const pipeline = { steps: [checkStep] };
  const plane = endpointPlane({
    lifecycle: endpointLifecycle<ResolvedEndpoint>(app.ctx, {
      builtIn: new Map(),
      user: pipeline,
      endpoints: app.ctx.endpoints,
    }),
    log: () => {},
    logger: app.ctx.log,
    captureLimit: app.ctx.config.captureLimit,
    faultTimeoutMax: app.ctx.config.faultTimeoutMax,
  });
  const targetOf = targetFinder('localhost');
  server = createServer((req, res) => {
    const target = targetOf(req);
    if (target) plane.handle(req, res, target);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await app.stop();
});

let n = 0;
async function newEndpoint(): Promise<string> {
  const name = `contract-${process.pid}-${++n}`;
  await app.ctx.store.createEndpoint({ name, createdAt: Date.now(), settings: {} });
  return name;
}

/** Sends one request per `x-check` value, in order; returns their paths. */
async function send(ep: string, checks: string[]): Promise<void> {
  for (const check of checks) {
    const res = await fetch(`http://127.0.0.1:${port}/e/${ep}/${check}`, { headers: { 'x-check': check } });
    assert.equal(res.status, 200);
    await res.text();
  }
  await app.ctx.history.flush();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read field by field
const paths = (body: any): string[] => (body.data as { path: string }[]).map((e) => e.path).sort();

test('the entry carries both lists in the summary and in verbose mode; an unchecked entry has neither', async () => {
  const ep = await newEndpoint();
  await send(ep, ['none', 'kept', 'request', 'response']);
  const list = await api(app, 'GET', `/endpoints/${ep}/requests`);
  assert.equal(list.status, 200);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON
  const byPath = new Map((list.body.data as any[]).map((e) => [e.path, e]));
  assert.deepEqual(byPath.get('/request').validation, [BAD]);
  assert.deepEqual(byPath.get('/request').responseValidation, []);
  assert.deepEqual(byPath.get('/response').responseValidation, [BAD_ANSWER]);
  assert.deepEqual(byPath.get('/kept').validation, []);
  assert.equal('validation' in byPath.get('/none'), false);
  assert.equal('responseValidation' in byPath.get('/none'), false);
  const one = await api(app, 'GET', `/endpoints/${ep}/requests/${byPath.get('/request').id}`);
  assert.equal(one.status, 200);
  assert.deepEqual(one.body.validation, [BAD]);
  assert.deepEqual(one.body.responseValidation, []);
});

test('?validation=failed lists the entries with a violation in either list; passed those checked and kept', async () => {
  const ep = await newEndpoint();
  await send(ep, ['none', 'kept', 'request', 'response']);
  const failed = await api(app, 'GET', `/endpoints/${ep}/requests?validation=failed`);
  assert.equal(failed.status, 200);
  assert.deepEqual(paths(failed.body), ['/request', '/response']);
  const passed = await api(app, 'GET', `/endpoints/${ep}/requests?validation=passed`);
  assert.deepEqual(paths(passed.body), ['/kept']);
});

test('?validation= other than failed or passed is a 400 naming the parameter', async () => {
  const ep = await newEndpoint();
  const res = await api(app, 'GET', `/endpoints/${ep}/requests?validation=broken`);
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 'validation_error');
  assert.match(JSON.stringify(res.body.error), /validation/);
});

test('a bulk delete with ?validation=failed deletes the failed entries only', async () => {
  const ep = await newEndpoint();
  await send(ep, ['none', 'kept', 'request', 'response']);
  const del = await api(app, 'DELETE', `/endpoints/${ep}/requests?validation=failed`);
  assert.equal(del.status, 200);
  assert.equal(del.body.count, 2);
  const left = await api(app, 'GET', `/endpoints/${ep}/requests`);
  assert.deepEqual(paths(left.body), ['/kept', '/none']);
});

test('a request with more violations than an entry keeps is recorded with MAX_VIOLATIONS and the note', async () => {
  const ep = await newEndpoint();
  await send(ep, ['many']);
  const list = await api(app, 'GET', `/endpoints/${ep}/requests`);
  const [e] = list.body.data;
  assert.equal(e.validation.length, MAX_VIOLATIONS);
  assert.equal(e.validation.at(-1).in, VIOLATIONS_TRUNCATED);
  assert.equal(e.validation.at(-1).message, `${50 - MAX_VIOLATIONS + 1} more violations not kept`);
});

test('the live request.created event carries both lists', async (t) => {
  const ep = await newEndpoint();
  const events = await openStream(`${app.url}/api/v2/endpoints/${ep}/events`, adminAuth);
  t.after(() => events.close());
  assert.equal(events.status, 200);
  await send(ep, ['request']);
  const got = await events.next('request.created', 5000);
  assert.deepEqual(got.data.validation, [BAD]);
  assert.deepEqual(got.data.responseValidation, []);
});

test('HAR export carries the lists under _mockingbird', async () => {
  const ep = await newEndpoint();
  await send(ep, ['none', 'response']);
  const res = await api(app, 'GET', `/endpoints/${ep}/requests?format=har`);
  assert.equal(res.status, 200);
  const har = typeof res.body === 'string' ? JSON.parse(res.body) : res.body;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- HAR JSON
  const byPath = new Map((har.log.entries as any[]).map((e) => [new URL(e.request.url).pathname, e]));
  const checked = [...byPath.entries()].find(([p]) => p.endsWith('/response'))![1];
  assert.deepEqual(checked._mockingbird.validation, []);
  assert.deepEqual(checked._mockingbird.responseValidation, [BAD_ANSWER]);
  const plain = [...byPath.entries()].find(([p]) => p.endsWith('/none'))![1];
  assert.equal('validation' in plain._mockingbird, false);
});

test("the API's OpenAPI document describes ?validation= on the list and the delete, and the entry's lists", async () => {
  const res = await app.inject({ method: 'GET', url: '/api/v2/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  const ops = doc.paths['/api/v2/endpoints/{ep}/requests'] ?? doc.paths['/endpoints/{ep}/requests'];
  assert.ok(ops, Object.keys(doc.paths).join(' '));
  for (const method of ['get', 'delete']) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- OpenAPI JSON
    const p = (ops[method].parameters as any[]).find((x) => x.name === 'validation');
    assert.ok(p, `${method} has no validation parameter`);
    const values = p.schema.enum ?? (p.schema.anyOf as { const: string }[]).map((s) => s.const);
    assert.deepEqual(values, ['failed', 'passed']);
  }
  assert.match(JSON.stringify(doc), /responseValidation/);
});
