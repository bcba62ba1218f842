/**
 * gRPC rules (SPEC §13) through the rules API: the `grpc_method` condition and the `grpc` action are
 * saved and read back, each invalid field is refused with its message, every bound at its edges, and
 * a `grpc_method` condition never holds for an HTTP request.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint, type Res } from '../helpers/api-helpers.js';
import { endpointRequest } from '../helpers/endpoint.js';
import { req, rule } from '../mock/rule-helpers.js';
import {
  compileRules,
  GRPC_MAX_DETAIL_BYTES,
  GRPC_MAX_DETAILS,
  GRPC_MAX_INTERVAL_MS,
  GRPC_MAX_METADATA,
  GRPC_MAX_RESPONSES,
  GRPC_MAX_STATUS_MESSAGE,
  GRPC_MAX_STREAM_COUNT,
  MAX_DELAY_MS,
  parseRule,
  type Condition,
  type GrpcAction,
  type Rule,
} from '../../src/mock/index.js';
import type { CapturedRequest } from '../../src/http/index.js';

let app: TestApp;
before(async () => {
  app = await startApp();
  await createEndpoint(app, 'grpc-rules');
});
after(async () => {
  await app.stop();
});

const METHOD = { type: 'grpc_method', operator: 'equals', value: 'user.UserService/GetUser' };
const ACTION = { type: 'grpc', callType: 'unary', responses: [{ body: '{"id": "1"}' }] };

const post = (r: unknown) => call(app, 'POST', '/endpoints/grpc-rules/rules', r);
const grpcRule = (action: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  conditions: [METHOD],
  action: { ...ACTION, ...action },
  ...extra,
});

async function accepted(r: unknown): Promise<Res['body']> {
  const res = await post(r);
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** A 400 with a detail at `path` whose message contains `message`. */
async function refused(r: unknown, path: string, message: string | RegExp): Promise<void> {
  const res = await post(r);
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error.code, 'validation_error');
  const details = res.body.error.details as { path: string; message: string }[];
  const d = details.find((x) => x.path === path);
  assert.ok(d, `no detail at ${path}: ${res.text}`);
  if (typeof message === 'string') assert.ok(d.message.includes(message), `${d.message} (${res.text})`);
  else assert.match(d.message, message);
}

const metadata = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));

void test('a grpc rule with every field is saved and read back unchanged', async () => {
  const input = {
    enabled: true,
    method: 'POST',
    description: 'streams users',
    conditions: [
      { type: 'grpc_method', operator: 'equals', value: 'user.UserService/ListUsers' },
      { type: 'header', key: 'x-tenant', operator: 'equals', value: 'a' },
      { type: 'body_param', key: 'page', operator: 'equals', value: '2' },
    ],
    action: {
      type: 'grpc',
      callType: 'server_streaming',
      status: 5,
      statusMessage: 'no more users',
      delay: 20,
      responses: [
        { body: '{"id": "{{body \'id\'}}"}', metadata: { 'x-trace': 'abc', 'x-raw-bin': 'AAEC' } },
        { body: '{"id": "2"}', metadata: {} },
      ],
      streamCount: { min: 2, max: 5 },
      singleResponseRepeated: true,
      interval: 100,
      trailers: { 'x-done': 'yes' },
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'GONE', domain: 'example.com' },
      ],
    },
  };
  const saved = await accepted(input);
  const { id, ...rest } = saved;
  assert.equal(typeof id, 'string');
  assert.deepEqual(rest, input);
  const read = await call(app, 'GET', `/endpoints/grpc-rules/rules/${id}`);
  assert.equal(read.status, 200);
  assert.deepEqual(read.body, saved);
});

void test('the hosted shape alone: defaults are filled, our own fields stay absent', async () => {
  const saved = await accepted({
    conditions: [{ type: 'grpc_method', value: 'user.UserService/GetUser' }],
    action: { type: 'grpc', callType: 'unary', responses: [{}] },
  });
  assert.deepEqual(saved.conditions, [
    { type: 'grpc_method', operator: 'equals', value: 'user.UserService/GetUser' },
  ]);
  assert.deepEqual(saved.action, {
    type: 'grpc',
    callType: 'unary',
    status: 0,
    statusMessage: '',
    delay: 0,
    responses: [{ body: '{}', metadata: {} }],
    streamCount: { min: 1, max: 1 },
    singleResponseRepeated: false,
  } satisfies GrpcAction);
});

void test('a JSON object body is stored as its JSON text', async () => {
  const saved = await accepted(grpcRule({ responses: [{ body: { id: '7', tags: ['a'], n: 1.5 } }] }));
  assert.equal(saved.action.responses[0].body, '{"id":"7","tags":["a"],"n":1.5}');
});

void test('every call type, and every grpc_method operator, is accepted', async () => {
  for (const callType of ['unary', 'server_streaming', 'client_streaming', 'bidirectional_streaming'])
    assert.equal((await accepted(grpcRule({ callType }))).action.callType, callType);
  for (const [operator, value] of [
    ['starts_with', 'user.UserService/'],
    ['contains', 'User'],
    ['regex', '^user\\.UserService/(Get|List)User$'],
  ])
    await accepted({ conditions: [{ type: 'grpc_method', operator, value }], action: ACTION });
});

void test('callType: required, one of the four', async () => {
  await refused({ conditions: [METHOD], action: { type: 'grpc', responses: [{}] } }, '/action/callType', '');
  await refused(grpcRule({ callType: 'streaming' }), '/action/callType', '');
});

void test('status: an integer 0..16', async () => {
  assert.equal((await accepted(grpcRule({ status: 0 }))).action.status, 0);
  assert.equal((await accepted(grpcRule({ status: 16 }))).action.status, 16);
  await refused(grpcRule({ status: 17 }), '/action/status', '16');
  await refused(grpcRule({ status: -1 }), '/action/status', '0');
  await refused(grpcRule({ status: 1.5 }), '/action/status', 'integer');
});

void test(`statusMessage: at most ${GRPC_MAX_STATUS_MESSAGE} characters`, async () => {
  await accepted(grpcRule({ statusMessage: 'x'.repeat(GRPC_MAX_STATUS_MESSAGE - 1) }));
  await accepted(grpcRule({ statusMessage: 'x'.repeat(GRPC_MAX_STATUS_MESSAGE) }));
  await refused(
    grpcRule({ statusMessage: 'x'.repeat(GRPC_MAX_STATUS_MESSAGE + 1) }),
    '/action/statusMessage',
    String(GRPC_MAX_STATUS_MESSAGE),
  );
  await refused(grpcRule({ statusMessage: 5 }), '/action/statusMessage', 'string');
});

void test("delay: the mock action's shape (0..MAX_DELAY_MS ms)", async () => {
  await accepted(grpcRule({ delay: MAX_DELAY_MS }));
  await refused(grpcRule({ delay: MAX_DELAY_MS + 1 }), '/action/delay', String(MAX_DELAY_MS));
  await refused(grpcRule({ delay: -1 }), '/action/delay', '0');
});

void test(`responses: 1..${GRPC_MAX_RESPONSES}`, async () => {
  await refused(grpcRule({ responses: [] }), '/action/responses', '1');
  await refused(grpcRule({ responses: undefined }), '/action/responses', 'Expected required property');
  for (const n of [GRPC_MAX_RESPONSES - 1, GRPC_MAX_RESPONSES])
    assert.equal((await accepted(grpcRule({ responses: Array(n).fill({}) }))).action.responses.length, n);
  await refused(
    grpcRule({ responses: Array(GRPC_MAX_RESPONSES + 1).fill({}) }),
    '/action/responses',
    String(GRPC_MAX_RESPONSES),
  );
  await refused(grpcRule({ responses: [{ body: '{}', status: 3 }] }), '/action/responses/0/status', '');
});

void test('a response body: JSON or a template; anything else is refused', async () => {
  await refused(grpcRule({ responses: [{ body: '{"id": ' }] }), '/action/responses/0/body', 'Not JSON');
  await refused(grpcRule({ responses: [{ body: 'plain' }] }), '/action/responses/0/body', 'proto3 JSON');
  await refused(grpcRule({ responses: [{ body: [1, 2] }] }), '/action/responses/0/body', '');
  await refused(grpcRule({ responses: [{ body: 5 }] }), '/action/responses/0/body', '');
  // A template is checked when it is rendered, but its size now (TEMPLATE_MAX_MUSTACHES, 500 by default).
  await accepted(grpcRule({ responses: [{ body: '{"id": {{body \'id\'}} }' }] }));
  await refused(
    grpcRule({ responses: [{ body: `{"id": "${'{{now}}'.repeat(501)}"}` }] }),
    '/action/responses/0/body',
    'mustache',
  );
});

void test('metadata and trailers: lower-case names, not grpc-*, not the transport’s, base64 for -bin', async () => {
  for (const [field, at] of [
    ['metadata', '/action/responses/0/metadata'],
    ['trailers', '/action/trailers'],
  ] as const) {
    const withMeta = (m: unknown) =>
      field === 'metadata'
        ? grpcRule({ responses: [{ body: '{}', metadata: m }] })
        : grpcRule({ trailers: m });
    await refused(withMeta({ 'X-Upper': 'v' }), `${at}/X-Upper`, 'Unexpected property');
    await refused(withMeta({ 'grpc-status': '0' }), `${at}/grpc-status`, 'reserved for gRPC');
    await refused(withMeta({ 'content-type': 'text/plain' }), `${at}/content-type`, 'set by the transport');
    await refused(withMeta({ te: 'trailers' }), `${at}/te`, 'set by the transport');
    await refused(withMeta({ 'x-id-bin': 'not base64!' }), `${at}/x-id-bin`, 'base64');
    await refused(withMeta({ 'x-id-bin': 'AAEC=' }), `${at}/x-id-bin`, 'base64');
    await refused(withMeta({ 'x-v': 'caf\u00e9' }), `${at}/x-v`, '');
    await refused(withMeta({ 'x-v': 'a\r\nb' }), `${at}/x-v`, '');
    await refused(withMeta({ 'x-v': 1 }), `${at}/x-v`, '');
    await accepted(withMeta({ 'x-id-bin': 'AAE', 'x.a_b-c': 'ok value' }));
    await accepted(withMeta(metadata(GRPC_MAX_METADATA - 1)));
    await accepted(withMeta(metadata(GRPC_MAX_METADATA)));
    await refused(withMeta(metadata(GRPC_MAX_METADATA + 1)), at, String(GRPC_MAX_METADATA));
  }
});

void test(`streamCount: whole numbers 1..${GRPC_MAX_STREAM_COUNT}, min at most max`, async () => {
  await accepted(grpcRule({ streamCount: { min: 1, max: GRPC_MAX_STREAM_COUNT } }));
  await accepted(grpcRule({ streamCount: { min: 3, max: 3 } }));
  await refused(grpcRule({ streamCount: { min: 0, max: 1 } }), '/action/streamCount/min', '1');
  await refused(
    grpcRule({ streamCount: { min: 1, max: GRPC_MAX_STREAM_COUNT + 1 } }),
    '/action/streamCount/max',
    String(GRPC_MAX_STREAM_COUNT),
  );
  await refused(
    grpcRule({ streamCount: { min: 4, max: 3 } }),
    '/action/streamCount',
    'min (4) is more than max (3)',
  );
  await refused(grpcRule({ streamCount: { min: 1 } }), '/action/streamCount/max', '');
  await refused(grpcRule({ streamCount: { min: 1.5, max: 2 } }), '/action/streamCount/min', 'integer');
});

void test('singleResponseRepeated: a boolean', async () => {
  await refused(grpcRule({ singleResponseRepeated: 'yes' }), '/action/singleResponseRepeated', 'boolean');
});

void test(`interval: 0..${GRPC_MAX_INTERVAL_MS} ms`, async () => {
  await accepted(grpcRule({ interval: 0 }));
  await accepted(grpcRule({ interval: GRPC_MAX_INTERVAL_MS - 1 }));
  await accepted(grpcRule({ interval: GRPC_MAX_INTERVAL_MS }));
  await refused(
    grpcRule({ interval: GRPC_MAX_INTERVAL_MS + 1 }),
    '/action/interval',
    String(GRPC_MAX_INTERVAL_MS),
  );
  await refused(grpcRule({ interval: -1 }), '/action/interval', '0');
});

void test(`details: at most ${GRPC_MAX_DETAILS}, each with a type URL, at most ${GRPC_MAX_DETAIL_BYTES} bytes`, async () => {
  const d = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'X' };
  await accepted(grpcRule({ details: Array(GRPC_MAX_DETAILS - 1).fill(d) }));
  await accepted(grpcRule({ details: Array(GRPC_MAX_DETAILS).fill(d) }));
  await refused(
    grpcRule({ details: Array(GRPC_MAX_DETAILS + 1).fill(d) }),
    '/action/details',
    String(GRPC_MAX_DETAILS),
  );
  await refused(grpcRule({ details: [{ reason: 'X' }] }), '/action/details/0/@type', '');
  await refused(grpcRule({ details: [{ '@type': 'ErrorInfo/' }] }), '/action/details/0/@type', 'type URL');
  await refused(grpcRule({ details: ['x'] }), '/action/details/0', '');
  // The JSON of `{"@type":"t/a.B","p":"…"}`: 24 bytes and the padding.
  const sized = (bytes: number) => ({ '@type': 't/a.B', p: 'x'.repeat(bytes - 24) });
  assert.equal(JSON.stringify(sized(100)).length, 100);
  await accepted(grpcRule({ details: [sized(GRPC_MAX_DETAIL_BYTES - 1)] }));
  await accepted(grpcRule({ details: [sized(GRPC_MAX_DETAIL_BYTES)] }));
  await refused(grpcRule({ details: [sized(GRPC_MAX_DETAIL_BYTES + 1)] }), '/action/details/0', 'at most');
});

void test('a property the action does not have is refused', async () => {
  await refused(grpcRule({ headers: [] }), '/action/headers', '');
});

void test('a grpc action and a grpc_method condition come together; the method is * or POST', async () => {
  await refused(
    {
      conditions: [{ type: 'path', operator: 'equals', value: '/user.UserService/GetUser' }],
      action: ACTION,
    },
    '/conditions',
    'needs a grpc_method condition',
  );
  await refused(
    { conditions: [METHOD], action: { type: 'mock' } },
    '/conditions/0',
    'use action type "grpc"',
  );
  await refused(grpcRule({}, { method: 'GET' }), '/method', 'Every gRPC call is a POST');
  assert.equal((await accepted(grpcRule({}, { method: 'POST' }))).method, 'POST');
  assert.equal((await accepted(grpcRule({}))).method, '*');
});

void test('grpc_method: its value names a method; a regex compiles; a value is required', async () => {
  const withValue = (c: Record<string, unknown>) => ({
    conditions: [{ type: 'grpc_method', ...c }],
    action: ACTION,
  });
  await refused(withValue({ value: 'GetUser' }), '/conditions/0/value', 'Expected pkg.Service/Method');
  await refused(
    withValue({ value: 'user.UserService/' }),
    '/conditions/0/value',
    'Expected pkg.Service/Method',
  );
  await refused(
    withValue({ value: '/user.UserService/GetUser' }),
    '/conditions/0/value',
    'without its leading "/"',
  );
  await refused(withValue({ operator: 'regex', value: '(' }), '/conditions/0/value', '');
  await refused(withValue({ operator: 'template', value: 'a/b' }), '/conditions/0/operator', '');
  await refused(withValue({}), '/conditions/0/value', '');
  await accepted(withValue({ value: 'GetUserService/Get' }));
});

void test('a union member is explained: an unknown action type names the types there are', async () => {
  const res = await post({ conditions: [METHOD], action: { type: 'grpcx' } });
  assert.equal(res.status, 400);
  assert.match(res.text, /grpc/);
});

void test('a grpc rule never answers an HTTP request, even one to the method’s own path', async () => {
  await createEndpoint(app, 'grpc-http');
  const r = await call(
    app,
    'POST',
    '/endpoints/grpc-http/rules',
    grpcRule({ statusMessage: 'from the rule' }),
  );
  assert.equal(r.status, 201, r.text);
  const res = await endpointRequest(app, 'grpc-http', '/user.UserService/GetUser', {
    method: 'POST',
    headers: { 'content-type': 'application/grpc' },
    payload: Buffer.from([0, 0, 0, 0, 0]),
  });
  await app.ctx.history.flush();
  const entry = (await app.ctx.store.listHistory('grpc-http', {}, 1)).data[0]!;
  assert.equal(entry.ruleMatched, false);
  assert.notEqual(entry.behavior, 'mock-rule');
  assert.ok(!res.body.includes('from the rule'));
});

/** A captured request as the gRPC plane gives it: metadata as headers, the message as JSON. */
async function grpcRequest(
  method: string | undefined,
  message: unknown,
  metadata: Record<string, string> = {},
) {
  const r = await req('POST', `/${method ?? 'x.Y/Z'}`, {
    headers: metadata,
    body: JSON.stringify(message),
    contentType: 'application/json',
  });
  return (method === undefined ? r : { ...r, grpc: { method } }) satisfies CapturedRequest;
}

void test('grpc_method holds for a gRPC call of that method, under each operator, and never without one', async () => {
  const cases: [Condition, string, string][] = [
    [{ type: 'grpc_method', value: 'a.B/C' }, 'a.B/C', 'a.B/CC'],
    [{ type: 'grpc_method', operator: 'equals', value: 'a.B/C' }, 'a.B/C', 'a.b/C'],
    [{ type: 'grpc_method', operator: 'starts_with', value: 'a.B/' }, 'a.B/D', 'a.BB/D'],
    [{ type: 'grpc_method', operator: 'contains', value: 'B/C' }, 'x.a.B/Cx', 'a.B/D'],
    [{ type: 'grpc_method', operator: 'regex', value: '^a\\.B/(C|D)$' }, 'a.B/D', 'a.B/E'],
  ];
  for (const [c, hit, miss] of cases) {
    const rules = compileRules([rule([c])]);
    assert.ok(rules.match(await grpcRequest(hit, {})), `${JSON.stringify(c)} ${hit}`);
    assert.equal(rules.match(await grpcRequest(miss, {})), undefined, `${JSON.stringify(c)} ${miss}`);
    // The same path over HTTP: no `grpc` on the request.
    assert.equal(rules.match(await req('POST', `/${hit}`)), undefined);
  }
});

void test('header, body and body_param conditions read the metadata and the message as they are', async () => {
  const parsed = parseRule({
    conditions: [
      { type: 'grpc_method', value: 'user.UserService/GetUser' },
      { type: 'header', key: 'x-tenant', operator: 'equals', value: 'acme' },
      { type: 'body', operator: 'contains', value: '"vip"' },
      { type: 'body_param', key: 'user.id', operator: 'equals', value: '42' },
    ],
    action: ACTION,
  });
  const rules = compileRules([{ ...(parsed as Omit<Rule, 'id'>), id: 'g' }]);
  const message = { user: { id: 42, tags: ['vip'] } };
  assert.ok(rules.match(await grpcRequest('user.UserService/GetUser', message, { 'x-tenant': 'acme' })));
  assert.equal(
    rules.match(await grpcRequest('user.UserService/GetUser', message, { 'x-tenant': 'b' })),
    undefined,
  );
  assert.equal(
    rules.match(
      await grpcRequest(
        'user.UserService/GetUser',
        { user: { id: 41, tags: ['vip'] } },
        { 'x-tenant': 'acme' },
      ),
    ),
    undefined,
  );
  assert.equal(
    rules.match(await grpcRequest('user.UserService/GetUser', { user: { id: 42 } }, { 'x-tenant': 'acme' })),
    undefined,
  );
});

void test('a rules list (bulk replace) reports the gRPC problems of each rule under its index', async () => {
  const res = await call(app, 'PUT', '/endpoints/grpc-rules/rules', {
    rules: [grpcRule({}), grpcRule({ streamCount: { min: 2, max: 1 } })],
  });
  assert.equal(res.status, 400, res.text);
  const paths = (res.body.error.details as { path: string }[]).map((d) => d.path);
  assert.deepEqual(paths, ['/rules/1/action/streamCount']);
});
