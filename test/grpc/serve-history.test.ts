/**
 * What a served gRPC call leaves behind (SPEC §13): the verbose history entry (GET …/requests/:id)
 * with both directions' messages as JSON, capped at GRPC_RECORDED_MESSAGES_MAX with `truncated`, and
 * the live `request.created` event of the endpoint's event stream.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GRPC_RECORDED_MESSAGES_MAX } from '../../src/mock/grpc-service.js';
import { adminAuth } from '../helpers/app.js';
import { call, createRule } from '../helpers/api-helpers.js';
import { grpc, readStream, unary } from '../helpers/grpc.js';
import { openStream } from '../helpers/sse-client.js';
import { grpcEntries, grpcRule, shopApp, shopClient, type GrpcEntry } from './serve-fixture.js';

type Streaming = Record<string, (r: unknown) => grpc.ClientReadableStream<{ id: string }>>;

test('the verbose entry of a call holds its request and response messages as JSON', async (t) => {
  const app = await shopApp(t);
  const client = shopClient(t, app);
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Get', {
      callType: 'unary',
      responses: [{ body: `{"id": "{{body 'id'}}", "name": "n"}` }],
    }),
  );
  await unary(client, 'Get', { id: 'k1' });
  const [brief] = await grpcEntries(app, 'shop');
  const r = await call(app, 'GET', `/endpoints/shop/requests/${brief!.id}`);
  assert.equal(r.status, 200, r.text);
  const e = r.body as GrpcEntry;
  assert.equal(e.behavior, 'grpc');
  assert.deepEqual(e.request.messages, [{ id: 'k1' }]);
  // Messages are JSON with their implicit fields (descriptors.ts: alwaysEmitImplicit).
  assert.deepEqual(e.response.messages, [
    { id: 'k1', name: 'n', priceCents: '0', status: 'STATUS_UNSPECIFIED', tagsById: {} },
  ]);
  assert.equal(e.request.truncated, false);
  assert.equal(e.response.truncated, false);
});

for (const count of [GRPC_RECORDED_MESSAGES_MAX, GRPC_RECORDED_MESSAGES_MAX + 1]) {
  test(`a stream of ${count} messages keeps ${GRPC_RECORDED_MESSAGES_MAX} in the history, truncated: ${count > GRPC_RECORDED_MESSAGES_MAX}`, async (t) => {
    const app = await shopApp(t);
    const client = shopClient(t, app);
    await createRule(
      app,
      'shop',
      grpcRule('shop.v1.Shop/Watch', {
        callType: 'server_streaming',
        streamCount: { min: count, max: count },
        responses: [{ body: '{"id": "s"}' }],
      }),
    );
    assert.equal((await readStream((client as unknown as Streaming)['Watch']!({ id: 'x' }))).length, count);
    const [brief] = await grpcEntries(app, 'shop');
    const e = (await call(app, 'GET', `/endpoints/shop/requests/${brief!.id}`)).body as GrpcEntry;
    assert.equal(e.response.messages!.length, GRPC_RECORDED_MESSAGES_MAX);
    assert.equal(e.response.truncated, count > GRPC_RECORDED_MESSAGES_MAX);
    assert.deepEqual(e.request.messages, [{ id: 'x' }]);
  });
}

test('a call is announced live as request.created with its grpc summary', async (t) => {
  const app = await shopApp(t);
  const client = shopClient(t, app);
  const events = await openStream(`${app.url}/api/v2/endpoints/shop/events`, adminAuth);
  t.after(() => events.close());
  assert.equal(events.status, 200);
  await unary(client, 'Get', { id: 'live' });
  const got = await events.next('request.created', 5000);
  assert.equal(got.data.behavior, 'grpc');
  assert.equal(got.data.path, '/shop.v1.Shop/Get');
  assert.deepEqual(got.data.grpc, {
    service: 'shop.v1.Shop',
    method: 'Get',
    callType: 'unary',
    status: 0,
    statusMessage: '',
  });
});
