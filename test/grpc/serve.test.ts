/**
 * gRPC calls end to end (SPEC §13): a proto uploaded to an endpoint, called by @grpc/grpc-js over h2c
 * on the service's one cleartext port, the endpoint named by :authority or by metadata; generated
 * answers, rules of every call type, statuses with details and trailers, an answer that does not fit
 * its type, unknown methods, reflection, and the history entry the call leaves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromBinary } from '@bufbuild/protobuf';
import { googleRpcRegistry } from '../../src/grpc/runtime.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint, createRule } from '../helpers/api-helpers.js';
import { grpc, protoClient, readStream, unary, uploadProto } from '../helpers/grpc.js';
import { SHOP_PROTO } from './fixtures.js';

const GET = 'shop.v1.Shop/Get';

function rule(method: string, action: Record<string, unknown>, conditions: unknown[] = []) {
  return {
    method: 'POST',
    conditions: [{ type: 'grpc_method', value: method }, ...conditions],
    action: { type: 'grpc', ...action },
  };
}

async function shop(t: {
  after(fn: () => Promise<void>): void;
}): Promise<{ app: TestApp; client: grpc.Client }> {
  const app = await startApp({}, { listen: true });
  t.after(() => app.stop());
  await createEndpoint(app, 'shop');
  await uploadProto(app, 'shop', SHOP_PROTO);
  const client = protoClient(SHOP_PROTO, 'shop.v1.Shop', `127.0.0.1:${app.port}`, {
    authority: 'shop.localhost',
  });
  t.after(async () => client.close());
  return { app, client };
}

test('with no rule, a unary call answers a message generated from the output type', async (t) => {
  const { client } = await shop(t);
  const item = await unary<Record<string, unknown>>(client, 'Get', { id: 'a1' });
  assert.equal(typeof item['id'], 'string');
  assert.equal(typeof item['name'], 'string');
  assert.ok(item['created_at'] && typeof item['created_at'] === 'object', JSON.stringify(item));
});

test('a rule answers a unary call with its template, reading the message and the metadata', async (t) => {
  const { app, client } = await shop(t);
  await createRule(
    app,
    'shop',
    rule(
      GET,
      { callType: 'unary', responses: [{ body: `{"id": "{{body 'id'}}", "name": "{{header 'x-who'}}"}` }] },
      [{ type: 'body_param', key: 'id', operator: 'equals', value: 'a1' }],
    ),
  );
  const md = new grpc.Metadata();
  md.set('x-who', 'Ada');
  assert.deepEqual(await unary(client, 'Get', { id: 'a1' }, md), { id: 'a1', name: 'Ada' });
  // Another message does not match the rule: the generated answer.
  const other = await unary<Record<string, unknown>>(client, 'Get', { id: 'zz' }, md);
  assert.notEqual(other['name'], 'Ada');
});

test('a non-zero status comes with its message, trailers and google.rpc.Status details', async (t) => {
  const { app, client } = await shop(t);
  await createRule(
    app,
    'shop',
    rule(GET, {
      callType: 'unary',
      status: 5,
      statusMessage: 'no such item: ä',
      trailers: { 'x-retry': 'no' },
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'MISSING', domain: 'shop' }],
      responses: [{ body: '{}' }],
    }),
  );
  const err = (await unary(client, 'Get', { id: 'a' }).then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => e,
  )) as grpc.ServiceError;
  assert.equal(err.code, grpc.status.NOT_FOUND);
  assert.equal(err.details, 'no such item: ä');
  assert.deepEqual(err.metadata.get('x-retry'), ['no']);
  const bin = err.metadata.get('grpc-status-details-bin')[0] as Buffer;
  const status = fromBinary(googleRpcRegistry().status, bin) as unknown as {
    code: number;
    details: { typeUrl: string }[];
  };
  assert.equal(status.code, 5);
  assert.equal(status.details[0]!.typeUrl, 'type.googleapis.com/google.rpc.ErrorInfo');
});

test('an answer that does not fit the output type ends the call INTERNAL, naming the field', async (t) => {
  const { app, client } = await shop(t);
  await createRule(
    app,
    'shop',
    rule(GET, { callType: 'unary', responses: [{ body: '{"priceCents": "lots"}' }] }),
  );
  const err = (await unary(client, 'Get', { id: 'a' }).catch((e: unknown) => e)) as grpc.ServiceError;
  assert.equal(err.code, grpc.status.INTERNAL);
  assert.match(err.details, /priceCents|price_cents/);
});

test('server streaming sends streamCount messages, the responses in turn, then the status', async (t) => {
  const { app, client } = await shop(t);
  await createRule(
    app,
    'shop',
    rule('shop.v1.Shop/Watch', {
      callType: 'server_streaming',
      streamCount: { min: 5, max: 5 },
      interval: 5,
      responses: [{ body: '{"id": "a"}' }, { body: '{"id": "b"}' }],
    }),
  );
  const got = await readStream(
    (client as unknown as Record<string, (r: unknown) => grpc.ClientReadableStream<{ id: string }>>)[
      'Watch'
    ]!({ id: 'x' }),
  );
  assert.deepEqual(
    got.map((m) => m.id),
    ['a', 'b', 'a', 'b', 'a'],
  );
});

test('client streaming answers once the client has sent its messages; bidirectional answers each in turn', async (t) => {
  const { app, client } = await shop(t);
  await createRule(
    app,
    'shop',
    rule(
      'shop.v1.Shop/Upload',
      { callType: 'client_streaming', responses: [{ body: `{"id": "{{body 'name'}}"}` }] },
      [{ type: 'body_param', key: 'name', operator: 'equals', value: 'second' }],
    ),
  );
  await createRule(
    app,
    'shop',
    rule('shop.v1.Shop/Chat', {
      callType: 'bidirectional_streaming',
      responses: [{ body: `{"name": "re: {{body 'id'}}"}` }],
    }),
  );
  const c = client as unknown as Record<string, (...a: unknown[]) => unknown>;
  const uploaded = await new Promise<{ id: string }>((resolve, reject) => {
    const up = c['Upload']!.call(client, (err: Error | null, v: { id: string }) =>
      err ? reject(err) : resolve(v),
    ) as grpc.ClientWritableStream<unknown>;
    up.write({ name: 'first' });
    up.write({ name: 'second' });
    up.end();
  });
  assert.equal(uploaded.id, 'second');

  const chat = c['Chat']!.call(client) as grpc.ClientDuplexStream<unknown, { name: string }>;
  const replies = readStream(chat);
  chat.write({ id: 'one' });
  chat.write({ id: 'two' });
  chat.end();
  assert.deepEqual(
    (await replies).map((m) => m.name),
    ['re: one', 're: two'],
  );
});

test('an unknown method is UNIMPLEMENTED; an unknown endpoint NOT_FOUND; metadata names the endpoint too', async (t) => {
  const { app } = await shop(t);
  const other = SHOP_PROTO.replace(
    'rpc Get(GetRequest) returns (Item);',
    'rpc Get(GetRequest) returns (Item);\n  rpc Gone(GetRequest) returns (Item);',
  );
  const byMetadata = protoClient(other, 'shop.v1.Shop', `127.0.0.1:${app.port}`);
  t.after(async () => byMetadata.close());
  const md = new grpc.Metadata();
  md.set('x-mockingbird-endpoint', 'shop');
  const gone = (await unary(byMetadata, 'Gone', {}, md).catch((e: unknown) => e)) as grpc.ServiceError;
  assert.equal(gone.code, grpc.status.UNIMPLEMENTED);
  assert.match(gone.details, /shop\.v1\.Shop\/Gone/);
  assert.equal(
    typeof (await unary<Record<string, unknown>>(byMetadata, 'Get', { id: 'a' }, md))['id'],
    'string',
  );

  const nowhere = (await unary(byMetadata, 'Get', {}).catch((e: unknown) => e)) as grpc.ServiceError;
  assert.equal(nowhere.code, grpc.status.NOT_FOUND);
  md.set('x-mockingbird-endpoint', 'nope');
  const unknown = (await unary(byMetadata, 'Get', {}, md).catch((e: unknown) => e)) as grpc.ServiceError;
  assert.equal(unknown.code, grpc.status.NOT_FOUND);
  assert.match(unknown.details, /"nope" does not exist/);
});

test('HTTP/1.1 on the same port is still answered; the call is in the history as behavior grpc', async (t) => {
  const { app, client } = await shop(t);
  const http1 = await fetch(`${app.url}/e/shop/plain`);
  assert.equal(http1.status, 200);
  await http1.text();
  await unary(client, 'Get', { id: 'h1' });
  let entries: { behavior: string; path: string; grpc?: Record<string, unknown> }[] = [];
  for (let i = 0; i < 100 && !entries.some((e) => e.behavior === 'grpc'); i++) {
    await new Promise((r) => setTimeout(r, 20));
    entries = (await call(app, 'GET', '/endpoints/shop/requests?behavior=grpc')).body.data;
  }
  const e = entries.find((x) => x.behavior === 'grpc')!;
  assert.equal(e.path, '/shop.v1.Shop/Get');
  assert.deepEqual(e.grpc, {
    service: 'shop.v1.Shop',
    method: 'Get',
    callType: 'unary',
    status: 0,
    statusMessage: '',
  });
});
