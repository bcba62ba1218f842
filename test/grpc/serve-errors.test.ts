/**
 * Bad input and cut calls through the whole server (SPEC §13): raw HTTP/2 gRPC requests whose frames
 * do not decode, are cut short or compressed without an encoding each end with a clear status (the
 * process goes on serving); a deadline passing mid-stream and a bidirectional call cancelled by the
 * client while the server holds its answer, or while it waits for the client's next message, leave
 * DEADLINE_EXCEEDED and CANCELLED in the history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { createRule } from '../helpers/api-helpers.js';
import { grpc, readStream, unary } from '../helpers/grpc.js';
import type { TestApp } from '../helpers/app.js';
import {
  countedShopClient,
  failure,
  grpcEntries,
  grpcRule,
  shopApp,
  shopClient,
  type After,
} from './serve-fixture.js';

interface RawAnswer {
  status: number | undefined;
  grpcStatus: string | undefined;
  grpcMessage: string | undefined;
}

/** A gRPC request over h2c with `body` as its bytes as they are: the HTTP status and the gRPC status. */
async function raw(
  t: After,
  app: TestApp,
  body: Buffer,
  headers: http2.OutgoingHttpHeaders = {},
): Promise<RawAnswer> {
  const session = http2.connect(app.url);
  session.on('error', () => undefined);
  t.after(() => session.close());
  const req = session.request({
    ':method': 'POST',
    ':path': '/shop.v1.Shop/Get',
    'content-type': 'application/grpc',
    te: 'trailers',
    'x-mockingbird-endpoint': 'shop',
    ...headers,
  });
  const answer: RawAnswer = { status: undefined, grpcStatus: undefined, grpcMessage: undefined };
  const take = (h: http2.IncomingHttpHeaders): void => {
    answer.grpcStatus ??= h['grpc-status'] as string | undefined;
    answer.grpcMessage ??= h['grpc-message'] as string | undefined;
  };
  req.on('response', (h) => {
    answer.status = h[':status'];
    take(h);
  });
  req.on('trailers', take);
  req.resume();
  req.end(body);
  await new Promise<void>((resolve, reject) => {
    req.on('close', () => resolve());
    req.on('error', reject);
  });
  return answer;
}

/** One gRPC frame: the compressed flag, the length, the bytes. */
function frame(bytes: number[], compressed = 0, length = bytes.length): Buffer {
  const head = Buffer.alloc(5);
  head[0] = compressed;
  head.writeUInt32BE(length, 1);
  return Buffer.concat([head, Buffer.from(bytes)]);
}

test('a message that does not decode as the input type is INTERNAL, naming the type', async (t) => {
  const app = await shopApp(t);
  // Field 1 as length-delimited, its length past the end.
  const a = await raw(t, app, frame([0x0a, 0x7f, 0x41]));
  assert.equal(a.status, 200);
  assert.equal(a.grpcStatus, String(grpc.status.INTERNAL));
  assert.match(decodeURIComponent(a.grpcMessage ?? ''), /does not decode as shop\.v1\.GetRequest/);
  const [e] = await grpcEntries(app, 'shop');
  assert.equal(e!.grpc.status, grpc.status.INTERNAL);
});

test('a frame cut short, or compressed with no grpc-encoding, ends with an error status; the server serves on', async (t) => {
  const app = await shopApp(t);
  const cut = await raw(t, app, frame([0x0a, 0x01], 0, 10));
  assert.equal(cut.grpcStatus, String(grpc.status.INTERNAL), JSON.stringify(cut));
  // The history says what the client was told, not CANCELLED.
  const [e] = await grpcEntries(app, 'shop');
  assert.equal(e!.grpc.status, grpc.status.INTERNAL);
  assert.equal(e!.grpc.statusMessage, decodeURIComponent(cut.grpcMessage ?? ''));
  const compressed = await raw(t, app, frame([0x0a, 0x01, 0x41], 1));
  assert.ok(compressed.grpcStatus !== undefined && compressed.grpcStatus !== '0', JSON.stringify(compressed));
  const empty = await raw(t, app, Buffer.alloc(0));
  assert.equal(empty.grpcStatus, String(grpc.status.INTERNAL), JSON.stringify(empty));
  // Still serving.
  assert.equal((await raw(t, app, frame([0x0a, 0x01, 0x41]))).grpcStatus, '0');
  assert.equal(typeof (await unary(shopClient(t, app), 'Get', { id: 'ok' }))['id'], 'string');
});

test('a deadline passing mid-stream ends it DEADLINE_EXCEEDED, in the history too', async (t) => {
  const app = await shopApp(t);
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Watch', {
      callType: 'server_streaming',
      streamCount: { min: 100, max: 100 },
      interval: 50,
      responses: [{ body: '{"id": "t"}' }],
    }),
  );
  const client = shopClient(t, app);
  const c = client as unknown as Record<string, (...a: unknown[]) => grpc.ClientReadableStream<unknown>>;
  const stream = c['Watch']!.call(client, { id: 'x' }, new grpc.Metadata(), { deadline: Date.now() + 400 });
  const err = await failure(readStream(stream));
  assert.equal(err.code, grpc.status.DEADLINE_EXCEEDED);
  const [e] = await grpcEntries(app, 'shop');
  assert.equal(e!.grpc.status, grpc.status.DEADLINE_EXCEEDED);
  const sent = e!.response.messages!.length;
  assert.ok(sent > 0 && sent < 20, `${sent} messages before the deadline`);
});

test('a bidirectional call cancelled while the server holds its answer is CANCELLED in the history', async (t) => {
  const app = await shopApp(t);
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Chat', {
      callType: 'bidirectional_streaming',
      interval: 5000,
      responses: [{ body: '{"name": "re"}' }],
    }),
  );
  const { client, fromServer } = await countedShopClient(t, app);
  const c = client as unknown as Record<
    string,
    (...a: unknown[]) => grpc.ClientDuplexStream<unknown, unknown>
  >;
  const chat = c['Chat']!.call(client);
  const ended = failure(readStream(chat));
  chat.write({ id: '1' });
  await new Promise<void>((resolve) => chat.once('data', () => resolve()));
  // The second answer waits for the interval; the client gives up first.
  chat.write({ id: '2' });
  await new Promise((r) => setTimeout(r, 100));
  const started = Date.now();
  chat.cancel();
  assert.equal((await ended).code, grpc.status.CANCELLED);
  const [e] = await grpcEntries(app, 'shop');
  assert.ok(Date.now() - started < 4000, 'the server did not wait out the interval');
  assert.equal(e!.grpc.status, grpc.status.CANCELLED);
  assert.deepEqual(e!.request.messages, [{ id: '1' }, { id: '2' }]);
  assert.equal(e!.response.messages!.length, 1);
  // The held answer's timer stopped: nothing goes out on the connection after the cancel.
  const written = fromServer();
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(fromServer(), written, 'the server wrote nothing after the cancel');
});

test('a bidirectional call cancelled while the server waits for the next message is CANCELLED in the history', async (t) => {
  // grpc-js's cancel sends END_STREAM, then RST_STREAM: the server reads a half-close first and ends
  // the call OK; the reset that follows still makes it CANCELLED.
  const app = await shopApp(t);
  const { client, fromServer } = await countedShopClient(t, app);
  const c = client as unknown as Record<
    string,
    (...a: unknown[]) => grpc.ClientDuplexStream<unknown, unknown>
  >;
  const chat = c['Chat']!.call(client);
  const ended = failure(readStream(chat));
  chat.write({ id: '1' });
  await new Promise<void>((resolve) => chat.once('data', () => resolve()));
  // The server answered the first message and waits for the next one; the client gives up.
  chat.cancel();
  assert.equal((await ended).code, grpc.status.CANCELLED);
  const [e] = await grpcEntries(app, 'shop');
  assert.equal(e!.grpc.status, grpc.status.CANCELLED);
  assert.deepEqual(e!.request.messages, [{ id: '1' }]);
  assert.equal(e!.response.messages!.length, 1);
  const written = fromServer();
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(fromServer(), written, 'the server wrote nothing after the cancel');
});

test('a call ended while the client holds its half open is recorded after GRPC_CLOSE_WAIT_MS, not at the close', async (t) => {
  const app = await shopApp(t);
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Chat', {
      callType: 'bidirectional_streaming',
      status: 14,
      responses: [{ body: '{}' }],
    }),
  );
  const session = http2.connect(app.url);
  session.on('error', () => undefined);
  t.after(() => session.destroy());
  const req = session.request({
    ':method': 'POST',
    ':path': '/shop.v1.Shop/Chat',
    'content-type': 'application/grpc',
    te: 'trailers',
    'x-mockingbird-endpoint': 'shop',
  });
  req.on('error', () => undefined);
  // The status comes Trailers-Only (no message before it): in the response headers.
  const answered = new Promise<http2.IncomingHttpHeaders>((resolve) => req.on('response', resolve));
  req.resume();
  // One message, and the request side left open: the stream cannot close until the client says so.
  req.write(frame([0x0a, 0x01, 0x41]));
  assert.equal((await answered)['grpc-status'], String(grpc.status.UNAVAILABLE));
  const [e] = await grpcEntries(app, 'shop');
  assert.equal(e!.grpc.status, grpc.status.UNAVAILABLE);
  assert.equal(req.closed, false, 'recorded while the stream is still open');
});
