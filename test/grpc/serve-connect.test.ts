/**
 * @connectrpc/connect-node as the client (SPEC §13), with message types built at run time from the
 * compiled descriptor set: the gRPC protocol over h2c (every call type, the endpoint named by the
 * x-mockingbird-endpoint metadata or the path form), and an error status with its message as connect reads it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';
import { createRule } from '../helpers/api-helpers.js';
import { grpcEntries, grpcRule, shopApp, shopService } from './serve-fixture.js';
import type { TestApp } from '../helpers/app.js';

/**
 * The connect client of shop.v1.Shop over h2c on the app's port, naming `shop` by metadata, or by the
 * path form (a base URL ending in /e/shop).
 */
function connectClient(app: TestApp, pathForm = false): Client<DescService> {
  const transport = createGrpcTransport({
    baseUrl: pathForm ? `${app.url}/e/shop` : app.url,
    interceptors: pathForm
      ? []
      : [
          (next) => async (req) => {
            req.header.set('x-mockingbird-endpoint', 'shop');
            return next(req);
          },
        ],
  });
  return createClient(shopService(), transport);
}

type Calls = Record<string, (...a: unknown[]) => unknown>;

/** The messages of a client stream. */
async function* messages(...items: Record<string, unknown>[]): AsyncIterable<Record<string, unknown>> {
  for (const m of items) yield m;
}

/** Rules for the three streaming methods. */
async function rules(app: TestApp): Promise<void> {
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Watch', {
      callType: 'server_streaming',
      streamCount: { min: 4, max: 4 },
      responses: [{ body: '{"id": "a"}' }, { body: '{"id": "b"}' }],
    }),
  );
  await createRule(
    app,
    'shop',
    grpcRule(
      'shop.v1.Shop/Upload',
      { callType: 'client_streaming', responses: [{ body: `{"id": "{{body 'name'}}"}` }] },
      [{ type: 'body_param', key: 'name', operator: 'equals', value: 'last' }],
    ),
  );
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Chat', {
      callType: 'bidirectional_streaming',
      responses: [{ body: `{"name": "re {{body 'id'}}"}` }],
    }),
  );
}

test('connect-node over h2c (gRPC protocol): every call type', async (t) => {
  const app = await shopApp(t);
  await rules(app);
  const c = connectClient(app) as unknown as Calls;
  const item = (await c['get']!({ id: 'a1' })) as { id: string; name: string };
  assert.equal(typeof item.id, 'string');
  assert.ok(item.id.length > 0 && item.name.length > 0, 'a generated item');

  const watched: string[] = [];
  for await (const m of c['watch']!({ id: 'x' }) as AsyncIterable<{ id: string }>) watched.push(m.id);
  assert.deepEqual(watched, ['a', 'b', 'a', 'b']);

  const uploaded = (await c['upload']!(messages({ name: 'first' }, { name: 'last' }))) as { id: string };
  assert.equal(uploaded.id, 'last');

  const replies: string[] = [];
  for await (const m of c['chat']!(messages({ id: '1' }, { id: '2' }, { id: '3' })) as AsyncIterable<{
    name: string;
  }>)
    replies.push(m.name);
  assert.deepEqual(replies, ['re 1', 're 2', 're 3']);
});

test('connect-node reads an error status, its message and trailers', async (t) => {
  const app = await shopApp(t);
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Get', {
      callType: 'unary',
      status: 7,
      statusMessage: 'not yours',
      trailers: { 'x-why': 'owner' },
      responses: [{ body: '{}' }],
    }),
  );
  const c = connectClient(app) as unknown as Calls;
  const err = await (c['get']!({ id: 'a' }) as Promise<unknown>).then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => ConnectError.from(e),
  );
  assert.equal(err.code, Code.PermissionDenied);
  assert.equal(err.rawMessage, 'not yours');
  assert.equal(err.metadata.get('x-why'), 'owner');
});

test('connect-node over h2c names the endpoint in the path form too', async (t) => {
  const app = await shopApp(t);
  await rules(app);
  const c = connectClient(app, true) as unknown as Calls;
  const watched: string[] = [];
  for await (const m of c['watch']!({ id: 'x' }) as AsyncIterable<{ id: string }>) watched.push(m.id);
  assert.deepEqual(watched, ['a', 'b', 'a', 'b']);
  const [e] = await grpcEntries(app, 'shop');
  assert.equal(e!.path, '/shop.v1.Shop/Watch');
});
