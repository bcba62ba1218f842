/**
 * Calls over HTTP/2 (h2c), as grpc-js and a raw HTTP/2 client see them: the four call shapes, status
 * with message, trailers and details, Trailers-Only, deadlines, cancellation, the bounds, bad input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, constants } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { encodeFrame, FLAG_COMPRESSED } from '../../src/grpc/frames.js';
import { CallError, GrpcStatus, type CallClosed } from '../../src/grpc/types.js';
import type { WireCall } from '../../src/grpc/wire-common.js';
import { until } from '../helpers/until.js';
import { echoClient, rawH2, serveH2c, unary } from './wire-fixture.js';

/** Echoes by path: Unary/ClientStream join the messages, ServerStream repeats, Bidi echoes each. */
async function echo(call: WireCall): Promise<void> {
  const shape = call.path.split('/').pop();
  if (shape === 'Bidi') {
    for await (const m of call.messages()) await call.send(m);
    return;
  }
  const parts: Uint8Array[] = [];
  for await (const m of call.messages()) parts.push(m);
  const joined = Buffer.concat(parts);
  if (shape === 'ServerStream') {
    for (let i = 0; i < 3; i++) await call.send(Buffer.concat([joined, Buffer.from(`-${i}`)]));
    call.end({ code: GrpcStatus.OK });
    return;
  }
  call.sendHeaders({ 'x-seen-authority': call.authority, 'x-echo-md': call.metadata['x-md'] ?? '' });
  await call.send(joined);
  call.end({ code: GrpcStatus.OK, trailers: { 'x-trailer': 'done' } });
}

async function withServer(t: import('node:test').TestContext, handler = echo, options = {}) {
  const served = await serveH2c(handler, options);
  const client = echoClient(served.port);
  t.after(async () => {
    client.close();
    await served.close();
  });
  return { served, client };
}

test('unary: request metadata in, response headers and trailers out', async (t) => {
  const { client } = await withServer(t);
  const md = new grpc.Metadata();
  md.set('x-md', 'hello');
  const { err, value, headers } = await unary(client, Buffer.from('ping'), md);
  assert.equal(err, null);
  assert.equal(value?.toString(), 'ping');
  assert.equal(headers?.get('x-echo-md')[0], 'hello');
  assert.match(String(headers?.get('x-seen-authority')[0]), /^127\.0\.0\.1:\d+$/);
});

test('server streaming: every message, then OK', async (t) => {
  const { client } = await withServer(t);
  const got: string[] = [];
  const stream = client.ServerStream(Buffer.from('s'));
  for await (const m of stream) got.push((m as Buffer).toString());
  assert.deepEqual(got, ['s-0', 's-1', 's-2']);
});

test('client streaming: the messages in order', async (t) => {
  const { client } = await withServer(t);
  const value = await new Promise<Buffer | undefined>((resolve, reject) => {
    const call = client.ClientStream(new grpc.Metadata(), {}, (err, v) => (err ? reject(err) : resolve(v)));
    for (const s of ['a', 'b', 'c']) call.write(Buffer.from(s));
    call.end();
  });
  assert.equal(value?.toString(), 'abc');
});

test('bidi: each message echoed as it comes', async (t) => {
  const { client } = await withServer(t);
  const call = client.Bidi();
  const got: string[] = [];
  call.write(Buffer.from('one'));
  for await (const m of call) {
    got.push((m as Buffer).toString());
    if (got.length === 1) call.write(Buffer.from('two'));
    else call.end();
  }
  assert.deepEqual(got, ['one', 'two']);
});

test('a gzip-compressed request is inflated', async (t) => {
  const served = await serveH2c(echo);
  const client = echoClient(served.port, undefined, { 'grpc.default_compression_algorithm': 2 });
  t.after(async () => {
    client.close();
    await served.close();
  });
  const { err, value } = await unary(client, Buffer.alloc(5000, 'z'));
  assert.equal(err, null);
  assert.equal(value?.length, 5000);
});

test('status, percent-encoded message, trailers and details as grpc-js sees them', async (t) => {
  const details = Buffer.from([8, 5, 18, 1, 120]);
  const { client } = await withServer(t, async (call) => {
    await call.send(Buffer.from('partial'));
    call.end({
      code: GrpcStatus.NOT_FOUND,
      message: 'no 100% ünïcode',
      trailers: { 'x-why': 'gone' },
      details,
    });
  });
  const { err } = await unary(client, Buffer.from('x'));
  assert.equal(err?.code, grpc.status.NOT_FOUND);
  assert.equal(err?.details, 'no 100% ünïcode');
  assert.equal(err?.metadata.get('x-why')[0], 'gone');
  assert.deepEqual(err?.metadata.get('grpc-status-details-bin')[0], details);
});

test('Trailers-Only: with no message sent, the status travels in the one HEADERS frame', async (t) => {
  const { served } = await withServer(t, async (call) => {
    call.end({ code: GrpcStatus.PERMISSION_DENIED, message: 'no', trailers: { 'x-a': 'b' } });
  });
  const answer = await rawH2(served.port, { ':path': '/test.Echo/Unary' }, encodeFrame(Buffer.from('x')));
  assert.equal(answer.trailers, undefined);
  assert.equal(answer.headers[':status'], 200);
  assert.equal(answer.headers['grpc-status'], '7');
  assert.equal(answer.headers['grpc-message'], 'no');
  assert.equal(answer.headers['x-a'], 'b');
  assert.equal(answer.body.length, 0);
});

test('after a message, the status travels in trailers; content-type +proto is echoed', async (t) => {
  const { served } = await withServer(t);
  const answer = await rawH2(
    served.port,
    { ':path': '/test.Echo/Unary', 'content-type': 'application/grpc+proto' },
    encodeFrame(Buffer.from('x')),
  );
  assert.equal(answer.headers['content-type'], 'application/grpc+proto');
  assert.equal(answer.headers['grpc-status'], undefined);
  assert.equal(answer.trailers?.['grpc-status'], '0');
  assert.equal(answer.trailers?.['x-trailer'], 'done');
  assert.deepEqual(answer.body, encodeFrame(Buffer.from('x')));
});

test('deadline: a client deadline shorter than the handler ends DEADLINE_EXCEEDED, signal aborted', async (t) => {
  let aborted: unknown;
  let deadline: number | undefined;
  const { client } = await withServer(t, async (call) => {
    deadline = call.deadline;
    call.signal.addEventListener('abort', () => {
      aborted = call.signal.reason as unknown;
    });
    await sleep(2000, undefined, { signal: call.signal }).catch(() => undefined);
  });
  const { err } = await unary(client, Buffer.from('x'), new grpc.Metadata(), { deadline: Date.now() + 150 });
  assert.equal(err?.code, grpc.status.DEADLINE_EXCEEDED);
  await until(() => aborted !== undefined);
  assert.ok(typeof deadline === 'number' && deadline > Date.now() - 1000);
});

test('deadline: the server itself answers DEADLINE_EXCEEDED when grpc-timeout runs out', async (t) => {
  let reason: unknown;
  const { served } = await withServer(t, async (call) => {
    await sleep(2000, undefined, { signal: call.signal }).catch(() => {
      reason = call.signal.reason as unknown;
    });
  });
  const answer = await rawH2(
    served.port,
    { ':path': '/test.Echo/Unary', 'grpc-timeout': '50m' },
    Buffer.alloc(0),
  );
  assert.equal(answer.headers['grpc-status'], String(GrpcStatus.DEADLINE_EXCEEDED));
  await until(() => reason !== undefined);
  assert.equal((reason as CallError).code, GrpcStatus.DEADLINE_EXCEEDED);
});

test('a malformed grpc-timeout is INTERNAL', async (t) => {
  let ran = false;
  const { served } = await withServer(t, async () => {
    ran = true;
  });
  const answer = await rawH2(served.port, { ':path': '/test.Echo/Unary', 'grpc-timeout': '123456789S' });
  assert.equal(answer.headers['grpc-status'], String(GrpcStatus.INTERNAL));
  assert.equal(ran, false);
});

test('cancellation mid-stream aborts the server signal, and the handler stops sending', async (t) => {
  let sent = 0;
  let aborted = false;
  let sendError: unknown;
  const { client } = await withServer(t, async (call) => {
    call.signal.addEventListener('abort', () => (aborted = true));
    try {
      while (!call.signal.aborted) {
        await call.send(Buffer.from(`m${sent++}`));
        await sleep(10, undefined, { signal: call.signal });
      }
    } catch (err) {
      sendError = err;
    }
  });
  const stream = client.ServerStream(Buffer.from('x'));
  stream.on('error', () => undefined);
  let received = 0;
  await new Promise<void>((resolve) =>
    stream.on('data', () => {
      if (++received === 3) {
        stream.cancel();
        resolve();
      }
    }),
  );
  await until(() => aborted);
  await until(() => sendError !== undefined);
  const after = sent;
  await sleep(50);
  assert.equal(sent, after);
});

test('closed: a call whose status went out is not cancelled; a reset read after the end still cancels', async (t) => {
  const closes: CallClosed[] = [];
  const { served, client } = await withServer(t, async (call) => {
    void call.closed.then((c) => closes.push(c));
    for await (const m of call.messages()) await call.send(m).catch(() => undefined);
    call.end({ code: GrpcStatus.OK });
  });
  const { err } = await unary(client, Buffer.from('x'));
  assert.equal(err, null);
  await until(() => closes.length === 1);
  assert.deepEqual(closes[0], { cancelled: false });
  // A cancel as Node's client sends it: the half-close, then RST_STREAM(CANCEL). The server may read
  // the half-close and end OK before it reads the reset; the call is cancelled either way.
  const session = connect(`http://127.0.0.1:${served.port}`);
  t.after(() => session.close());
  const req = session.request({
    ':method': 'POST',
    ':path': '/test.Echo/Bidi',
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  req.on('error', () => undefined);
  req.end(encodeFrame(Buffer.from('x')));
  req.close(constants.NGHTTP2_CANCEL);
  await until(() => closes.length === 2);
  assert.deepEqual(closes[1], { cancelled: true });
});

test('a second end is ignored', async (t) => {
  const { client } = await withServer(t, async (call) => {
    call.end({ code: GrpcStatus.ALREADY_EXISTS, message: 'first' });
    call.end({ code: GrpcStatus.OK });
    await assert.rejects(call.send(Buffer.from('late')), CallError);
  });
  const { err } = await unary(client, Buffer.from('x'));
  assert.equal(err?.code, grpc.status.ALREADY_EXISTS);
  assert.equal(err?.details, 'first');
});

test('handler errors: a CallError keeps its status, anything else is INTERNAL without internals', async (t) => {
  const { client } = await withServer(t, async (call) => {
    if (call.metadata['x-kind'] === 'call') throw new CallError(GrpcStatus.FAILED_PRECONDITION, 'not yet');
    throw new Error('secret stack detail');
  });
  const md = new grpc.Metadata();
  md.set('x-kind', 'call');
  const a = await unary(client, Buffer.from('x'), md);
  assert.equal(a.err?.code, grpc.status.FAILED_PRECONDITION);
  assert.equal(a.err?.details, 'not yet');
  const b = await unary(client, Buffer.from('x'));
  assert.equal(b.err?.code, grpc.status.INTERNAL);
  assert.equal(b.err?.details, 'internal error');
});

test('invalid response metadata ends the call INTERNAL', async (t) => {
  const { client } = await withServer(t, async (call) => {
    call.sendHeaders({ 'Bad Key': 'x' });
  });
  const { err } = await unary(client, Buffer.from('x'));
  assert.equal(err?.code, grpc.status.INTERNAL);
  assert.match(err?.details ?? '', /invalid response metadata key/);
});

test('maxMessageBytes: the limit passes, limit+1 is RESOURCE_EXHAUSTED', async (t) => {
  const { client } = await withServer(t, echo, { maxMessageBytes: 100 });
  assert.equal((await unary(client, Buffer.alloc(99))).err, null);
  assert.equal((await unary(client, Buffer.alloc(100))).err, null);
  const over = await unary(client, Buffer.alloc(101));
  assert.equal(over.err?.code, grpc.status.RESOURCE_EXHAUSTED);
});

test('a compressed message in an unknown encoding is UNIMPLEMENTED', async (t) => {
  const { served } = await withServer(t);
  const answer = await rawH2(
    served.port,
    { ':path': '/test.Echo/Unary', 'grpc-encoding': 'snappy' },
    encodeFrame(Buffer.from('x'), FLAG_COMPRESSED),
  );
  assert.equal(answer.headers['grpc-status'], String(GrpcStatus.UNIMPLEMENTED));
});

test('a body cut inside a frame is INTERNAL', async (t) => {
  const { served } = await withServer(t);
  const answer = await rawH2(
    served.port,
    { ':path': '/test.Echo/Unary' },
    encodeFrame(Buffer.from('xyz')).subarray(0, 6),
  );
  assert.equal(answer.headers['grpc-status'], String(GrpcStatus.INTERNAL));
});

test('a method other than POST is 405', async (t) => {
  const { served } = await withServer(t);
  const answer = await rawH2(served.port, { ':path': '/test.Echo/Unary', ':method': 'PUT' });
  assert.equal(answer.headers[':status'], 405);
});

test('send waits for drain when the client does not read, and rejects once the client goes', async (t) => {
  let pending = false;
  let rejected: unknown;
  const { client } = await withServer(t, async (call) => {
    try {
      for (;;) {
        const p = call.send(Buffer.alloc(64 * 1024));
        pending = true;
        await p;
        pending = false;
      }
    } catch (err) {
      rejected = err;
    }
  });
  const stream = client.ServerStream(Buffer.from('x'));
  stream.on('error', () => undefined);
  stream.pause();
  await until(() => pending, 3000);
  await sleep(50);
  assert.equal(pending, true);
  stream.cancel();
  await until(() => rejected !== undefined);
  assert.ok(rejected instanceof CallError);
});
