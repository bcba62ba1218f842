/**
 * The life of a gRPC call end to end (SPEC §13), with @grpc/grpc-js over h2c: a deadline shorter than
 * the rule's delay, a server stream cancelled by the client, the server stopped with a stream open,
 * and the history entry each leaves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grpc, readStream, unary } from '../helpers/grpc.js';
import { createRule } from '../helpers/api-helpers.js';
import { countedShopClient, failure, grpcEntries, grpcRule, shopApp, shopClient } from './serve-fixture.js';

type Streaming = Record<
  string,
  (r: unknown, md?: grpc.Metadata) => grpc.ClientReadableStream<{ id: string }>
>;

test('a rule delaying past the client deadline ends DEADLINE_EXCEEDED; the history says 4', async (t) => {
  const app = await shopApp(t);
  const client = shopClient(t, app);
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Get', { callType: 'unary', delay: 3000, responses: [{ body: '{"id": "late"}' }] }),
  );
  const started = Date.now();
  const err = await failure(
    unary(client, 'Get', { id: 'a' }, new grpc.Metadata(), { deadline: Date.now() + 300 }),
  );
  assert.equal(err.code, grpc.status.DEADLINE_EXCEEDED);
  assert.ok(Date.now() - started < 2500, 'the client did not wait for the delay');
  const [e] = await grpcEntries(app, 'shop');
  assert.equal(e!.grpc.status, grpc.status.DEADLINE_EXCEEDED);
  assert.deepEqual(e!.response.messages, []);
});

test('a server stream cancelled by the client stops: few messages sent, the history says CANCELLED', async (t) => {
  const app = await shopApp(t);
  const { client, fromServer } = await countedShopClient(t, app);
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Watch', {
      callType: 'server_streaming',
      streamCount: { min: 1000, max: 1000 },
      interval: 20,
      responses: [{ body: '{"id": "tick"}' }],
    }),
  );
  const stream = (client as unknown as Streaming)['Watch']!({ id: 'x' });
  let seen = 0;
  const ended = readStream(stream).catch((e: grpc.ServiceError) => e);
  stream.on('data', () => {
    if (++seen === 3) stream.cancel();
  });
  const err = (await ended) as grpc.ServiceError;
  assert.equal(err.code, grpc.status.CANCELLED);
  const [e] = await grpcEntries(app, 'shop');
  assert.equal(e!.grpc.status, grpc.status.CANCELLED);
  const sent = e!.response.messages!.length;
  assert.ok(sent >= 3 && sent < 20, `the server stopped after the cancel (${sent} messages sent)`);
  // Nothing more is written: the one entry stays the only one, and no byte goes out on the
  // connection in ten of the stream's intervals.
  const written = fromServer();
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await grpcEntries(app, 'shop')).length, 1);
  assert.equal(fromServer(), written, 'the server wrote nothing after the cancel');
});

test('stopping the server with an endless stream open does not hang: SHUTDOWN_TIMEOUT cuts it', async (t) => {
  const app = await shopApp(t, { shutdownTimeout: 2000 });
  const client = shopClient(t, app);
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Watch', {
      callType: 'server_streaming',
      streamCount: { min: 1000, max: 1000 },
      interval: 100,
      responses: [{ body: '{"id": "tick"}' }],
    }),
  );
  const stream = (client as unknown as Streaming)['Watch']!({ id: 'x' });
  const ended = readStream(stream).then(
    () => 'end',
    (e: grpc.ServiceError) => e.code,
  );
  await new Promise<void>((resolve) => stream.once('data', () => resolve()));
  const started = Date.now();
  await app.stop();
  const took = Date.now() - started;
  // SHUTDOWN_TIMEOUT (2 s) cuts the stream, which would run 100 s; the rest of the close takes ~1 s.
  assert.ok(took < 2000 + 4000, `app.stop() took ${took} ms, well past SHUTDOWN_TIMEOUT`);
  const how = await ended;
  assert.notEqual(how, grpc.status.OK, `the stream ended: ${how}`);
});

test('a stream open when the server stops runs to its end within SHUTDOWN_TIMEOUT', async (t) => {
  const app = await shopApp(t, { shutdownTimeout: 5000 });
  const client = shopClient(t, app);
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Watch', {
      callType: 'server_streaming',
      streamCount: { min: 5, max: 5 },
      interval: 100,
      responses: [{ body: '{"id": "tick"}' }],
    }),
  );
  const stream = (client as unknown as Streaming)['Watch']!({ id: 'x' });
  const all = readStream(stream);
  await new Promise<void>((resolve) => stream.once('data', () => resolve()));
  const stopped = app.stop();
  assert.equal((await all).length, 5, 'every message, then OK');
  await stopped;
});

test('a client stream of GRPC_CLIENT_MESSAGES_MAX messages is answered; one more is RESOURCE_EXHAUSTED', async (t) => {
  const { GRPC_CLIENT_MESSAGES_MAX } = await import('../../src/mock/grpc-service.js');
  const app = await shopApp(t);
  const client = shopClient(t, app);
  const upload = (n: number) =>
    new Promise<unknown>((resolve, reject) => {
      const c = client as unknown as Record<string, (...a: unknown[]) => grpc.ClientWritableStream<unknown>>;
      const up = c['Upload']!.call(client, (err: Error | null, v: unknown) =>
        err ? reject(err) : resolve(v),
      );
      for (let i = 0; i < n; i++) up.write({ id: String(i) });
      up.end();
    });
  assert.equal(typeof ((await upload(GRPC_CLIENT_MESSAGES_MAX - 1)) as { id: string }).id, 'string');
  assert.equal(typeof ((await upload(GRPC_CLIENT_MESSAGES_MAX)) as { id: string }).id, 'string');
  const err = await failure(upload(GRPC_CLIENT_MESSAGES_MAX + 1));
  assert.equal(err.code, grpc.status.RESOURCE_EXHAUSTED);
  assert.match(err.details, new RegExp(`at most ${GRPC_CLIENT_MESSAGES_MAX} messages`));
  const entries = await grpcEntries(app, 'shop', 3);
  assert.equal(entries[0]!.grpc.status, grpc.status.RESOURCE_EXHAUSTED);
  assert.equal(entries[0]!.request.truncated, true, 'the history keeps only the first messages');
});
