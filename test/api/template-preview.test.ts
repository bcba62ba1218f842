/**
 * POST /api/v2/endpoints/:ep/templates/preview: a template rendered against a recorded request (or a
 * blank GET /), the rule's conditions deciding the match and the path parameters; nothing recorded or
 * changed; errors in the documented shape.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertDetail, assertError, call, createEndpoint, scopedKey } from '../helpers/api-helpers.js';

let app: TestApp;
let recorded: string;
before(async () => {
  app = await startApp();
  await createEndpoint(app, 'prev');
  const res = await app.inject({
    method: 'POST',
    url: '/e/prev/users/42?sort=name',
    headers: { 'content-type': 'application/json', 'x-team': 'blue' },
    payload: '{"user":{"name":"Ada"}}',
  });
  assert.equal(res.statusCode, 200);
  await app.ctx.history.flush();
  recorded = (await call(app, 'GET', '/endpoints/prev/requests')).body.data[0].id;
});
after(async () => {
  await app.stop();
});

const preview = (payload: unknown, key?: string) =>
  call(app, 'POST', '/endpoints/prev/templates/preview', payload, key);

const rule = (conditions: unknown[], method = 'POST') => ({
  method,
  conditions,
  action: { type: 'mock', status: 200, body: 'x' },
});

void test('renders against the recorded request: body, query, header, method and the path parameters', async () => {
  const r = await preview({
    template: '{{method}} {{pathParam "id"}} {{body "user.name"}} {{queryParam "sort"}} {{header "x-team"}}',
    requestId: recorded,
    rule: rule([{ type: 'path', operator: 'template', value: '/users/:id' }]),
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, {
    output: 'POST 42 Ada name blue',
    problems: [],
    matched: true,
    pathParams: { id: '42' },
  });
});

void test('says when the rule would not match the request, and renders without its parameters', async () => {
  const r = await preview({
    template: '[{{pathParam "id"}}]',
    requestId: recorded,
    rule: rule([{ type: 'path', operator: 'template', value: '/orders/:id' }]),
  });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.matched, false);
  assert.equal(r.body.output, '[]');
});

void test('without a request: a blank GET /; problems are reported, not thrown', async () => {
  const r = await preview({ template: '{{method}} {{path}} {{nosuchhelper}}' });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.output, 'GET / ');
  assert.match(r.body.problems.join(' '), /unknown helper "nosuchhelper"/);
  assert.equal(r.body.matched, undefined);
});

void test('state helpers see no state and change none', async () => {
  const r = await preview({ template: "{{step-counter 'inc' 'visits'}}" });
  assert.equal(r.status, 200, r.text);
  assert.match(r.body.problems.join(' '), /step-counter/);
  assert.doesNotMatch(r.body.problems.join(' '), /unknown helper/);
  const state = await call(app, 'GET', '/endpoints/prev/state');
  assert.deepEqual(state.body.data, []);
});

void test('a render that runs out of its budget answers error, not output', async () => {
  const r = await preview({ template: '{{#repeat 100000}}x{{/repeat}}' });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.output, undefined);
  assert.equal(typeof r.body.error, 'string');
});

void test('errors: unknown request 404, a bad rule 400 under /rule, a scoped key of another endpoint 403, nothing recorded', async () => {
  assertError(await preview({ template: 'x', requestId: 'nope' }), 404, 'not_found');
  assertDetail(
    await preview({ template: 'x', rule: rule([{ type: 'path', operator: 'regex', value: '(' }]) }),
    '/rule/conditions/0/value',
  );
  assertDetail(await preview({ template: 1 }), '/template');
  assertDetail(await preview({ template: 'x', extra: true }), '/extra');
  await createEndpoint(app, 'prev-other');
  const key = await scopedKey(app, 'prev-other');
  assertError(await preview({ template: 'x' }, key), 403, 'forbidden');
  await app.ctx.history.flush();
  assert.equal((await call(app, 'GET', '/endpoints/prev/requests')).body.data.length, 1);
});
