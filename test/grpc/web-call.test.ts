/**
 * gRPC-Web with fetch over HTTP/1.1 (binary and -text), and over HTTP/2: unary, server streaming,
 * the trailer frame, Trailers-Only, CORS (preflight and exposed headers), deadlines and bad input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { request } from 'node:http';
import { PassThrough } from 'node:stream';
import { connect as h2connect } from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeFrame, FrameDecoder, FLAG_TRAILERS } from '../../src/grpc/frames.js';
import { serveWebCall, webExchange } from '../../src/grpc/web-call.js';
import { GrpcStatus, type CallClosed } from '../../src/grpc/types.js';
import type { WireCall } from '../../src/grpc/wire-common.js';
import { until } from '../helpers/until.js';
import { serveH2c } from './wire-fixture.js';

async function handler(call: WireCall): Promise<void> {
  const parts: Uint8Array[] = [];
  for await (const m of call.messages()) parts.push(m);
  const joined = Buffer.concat(parts).toString();
  if (call.path.endsWith('/Fail')) {
    call.end({ code: GrpcStatus.NOT_FOUND, message: 'nothing for ' + joined, trailers: { 'x-why': 'gone' } });
    return;
  }
  call.sendHeaders({ 'x-header': 'h', 'x-web': String(call.web) });
  const n = call.path.endsWith('/ServerStream') ? 3 : 1;
  for (let i = 0; i < n; i++) await call.send(Buffer.from(`${joined}-${i}`));
  call.end({ code: GrpcStatus.OK, trailers: { 'x-trailer': 't' } });
}

interface WebAnswer {
  status: number;
  headers: Headers;
  messages: string[];
  trailers: Record<string, string> | undefined;
}

/** Splits a body (base64 runs for -text) into messages and the trailer frame's fields. */
function parseBody(body: Buffer, text: boolean): Omit<WebAnswer, 'status' | 'headers'> {
  let bytes = body;
  if (text) {
    const runs = body.toString('latin1').match(/[^=]+=*/g) ?? [];
    bytes = Buffer.concat(runs.map((r) => Buffer.from(r, 'base64')));
  }
  const frames = new FrameDecoder({ maxMessageBytes: 1 << 20, allowTrailers: true }).push(bytes);
  const messages: string[] = [];
  let trailers: Record<string, string> | undefined;
  for (const f of frames) {
    if (f.flags & FLAG_TRAILERS) {
      trailers = {};
      for (const line of f.data.toString('latin1').split('\r\n')) {
        const i = line.indexOf(':');
        if (i > 0) trailers[line.slice(0, i)] = line.slice(i + 1);
      }
    } else messages.push(f.data.toString());
  }
  return { messages, trailers };
}

async function webFetch(
  port: number,
  path: string,
  messages: string[],
  contentType = 'application/grpc-web+proto',
  headers: Record<string, string> = {},
): Promise<WebAnswer> {
  const text = contentType.includes('-text');
  const framed = Buffer.concat(messages.map((m) => encodeFrame(Buffer.from(m))));
  const body = text ? framed.toString('base64') : framed;
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType, origin: 'http://page.test', ...headers },
    body,
  });
  const raw = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, ...parseBody(raw, text) };
}

async function withServer(t: import('node:test').TestContext, h = handler, options = {}) {
  const served = await serveH2c(h, options);
  t.after(() => served.close());
  return served;
}

test('unary over HTTP/1.1, binary: message, trailer frame, CORS exposure', async (t) => {
  const { port } = await withServer(t);
  const a = await webFetch(port, '/test.Echo/Unary', ['hi']);
  assert.equal(a.status, 200);
  assert.equal(a.headers.get('content-type'), 'application/grpc-web+proto');
  assert.equal(a.headers.get('x-header'), 'h');
  assert.deepEqual(a.messages, ['hi-0']);
  assert.deepEqual(a.trailers, { 'grpc-status': '0', 'x-trailer': 't' });
  assert.equal(a.headers.get('access-control-allow-origin'), 'http://page.test');
  const exposed = (a.headers.get('access-control-expose-headers') ?? '').split(', ');
  for (const h of ['grpc-status', 'grpc-message', 'grpc-status-details-bin', 'x-header'])
    assert.ok(exposed.includes(h), h);
});

test('server streaming over HTTP/1.1, binary and -text', async (t) => {
  const { port } = await withServer(t);
  const bin = await webFetch(port, '/test.Echo/ServerStream', ['s'], 'application/grpc-web');
  assert.deepEqual(bin.messages, ['s-0', 's-1', 's-2']);
  assert.equal(bin.trailers?.['grpc-status'], '0');
  const text = await webFetch(port, '/test.Echo/ServerStream', ['a', 'b'], 'application/grpc-web-text');
  assert.equal(text.headers.get('content-type'), 'application/grpc-web-text');
  assert.deepEqual(text.messages, ['ab-0', 'ab-1', 'ab-2']);
  assert.equal(text.trailers?.['grpc-status'], '0');
});

test('-text request body in several padded runs, cut at odd places', async (t) => {
  const { port } = await withServer(t);
  const runs = ['one', 'three'].map((m) => encodeFrame(Buffer.from(m)).toString('base64')).join('');
  assert.match(runs, /=[A-Za-z]/);
  const res = await fetch(`http://127.0.0.1:${port}/test.Echo/Unary`, {
    method: 'POST',
    headers: { 'content-type': 'application/grpc-web-text' },
    body: new ReadableStream({
      async start(controller) {
        for (let i = 0; i < runs.length; i += 3) {
          controller.enqueue(Buffer.from(runs.slice(i, i + 3)));
          await sleep(1);
        }
        controller.close();
      },
    }),
    duplex: 'half',
  });
  const a = parseBody(Buffer.from(await res.arrayBuffer()), true);
  assert.deepEqual(a.messages, ['onethree-0']);
});

test('invalid base64 in a -text body ends INTERNAL', async (t) => {
  const { port } = await withServer(t);
  const res = await fetch(`http://127.0.0.1:${port}/test.Echo/Unary`, {
    method: 'POST',
    headers: { 'content-type': 'application/grpc-web-text' },
    body: 'AAAA!!!!',
  });
  assert.equal(res.headers.get('grpc-status'), String(GrpcStatus.INTERNAL));
  assert.match(res.headers.get('grpc-message') ?? '', /base64/);
});

test('Trailers-Only: a status with no message travels in the headers, body empty', async (t) => {
  const { port } = await withServer(t);
  const a = await webFetch(port, '/test.Echo/Fail', ['x y']);
  assert.equal(a.status, 200);
  assert.equal(a.headers.get('grpc-status'), '5');
  assert.equal(a.headers.get('grpc-message'), 'nothing for x y');
  assert.equal(a.headers.get('x-why'), 'gone');
  assert.deepEqual(a.messages, []);
  assert.equal(a.trailers, undefined);
  assert.match(a.headers.get('access-control-expose-headers') ?? '', /x-why/);
  const encoded = await webFetch(port, '/test.Echo/Fail', ['ü 100%']);
  assert.equal(encoded.headers.get('grpc-message'), 'nothing for %C3%BC 100%25');
});

test('CORS preflight: 204, Origin echoed, POST, the requested headers, a max age', async (t) => {
  const { port } = await withServer(t);
  const res = await fetch(`http://127.0.0.1:${port}/test.Echo/Unary`, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://page.test',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-grpc-web,x-user-agent',
    },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get('access-control-allow-origin'), 'http://page.test');
  assert.equal(res.headers.get('access-control-allow-methods'), 'POST');
  assert.equal(res.headers.get('access-control-allow-headers'), 'content-type,x-grpc-web,x-user-agent');
  assert.equal(res.headers.get('access-control-max-age'), '600');
});

test('a method other than POST or OPTIONS is 405', async (t) => {
  const { port } = await withServer(t);
  const res = await fetch(`http://127.0.0.1:${port}/test.Echo/Unary`, {
    method: 'PUT',
    headers: { 'content-type': 'application/grpc-web' },
    body: 'x',
  });
  assert.equal(res.status, 405);
});

test('deadline: grpc-timeout ends DEADLINE_EXCEEDED and aborts the signal', async (t) => {
  let aborted = false;
  const { port } = await withServer(t, async (call) => {
    call.signal.addEventListener('abort', () => (aborted = true));
    await sleep(2000, undefined, { signal: call.signal }).catch(() => undefined);
  });
  const a = await webFetch(port, '/test.Echo/Unary', ['x'], 'application/grpc-web', {
    'grpc-timeout': '50m',
  });
  assert.equal(a.headers.get('grpc-status'), String(GrpcStatus.DEADLINE_EXCEEDED));
  assert.equal(aborted, true);
});

test('a client that goes away aborts the signal', async (t) => {
  let aborted = false;
  let started = false;
  const { port } = await withServer(t, async (call) => {
    started = true;
    call.signal.addEventListener('abort', () => (aborted = true));
    await sleep(5000, undefined, { signal: call.signal }).catch(() => undefined);
  });
  const req = request({
    host: '127.0.0.1',
    port,
    path: '/test.Echo/Unary',
    method: 'POST',
    headers: { 'content-type': 'application/grpc-web' },
  });
  req.on('error', () => undefined);
  req.end(encodeFrame(Buffer.from('x')));
  await until(() => started);
  req.destroy();
  await until(() => aborted);
});

test('closed: an answer that went out whole is not cancelled; a client gone first is', async (t) => {
  const closes: CallClosed[] = [];
  let started = false;
  const { port } = await withServer(t, async (call) => {
    void call.closed.then((c) => closes.push(c));
    if (call.path.endsWith('/Slow')) {
      started = true;
      await sleep(5000, undefined, { signal: call.signal }).catch(() => undefined);
    }
    await handler(call);
  });
  const a = await webFetch(port, '/test.Echo/Unary', ['x']);
  assert.equal(a.trailers?.['grpc-status'], '0');
  await until(() => closes.length === 1);
  assert.deepEqual(closes[0], { cancelled: false });
  const req = request({
    host: '127.0.0.1',
    port,
    path: '/test.Echo/Slow',
    method: 'POST',
    headers: { 'content-type': 'application/grpc-web' },
  });
  req.on('error', () => undefined);
  req.end(encodeFrame(Buffer.from('x')));
  await until(() => started);
  req.destroy();
  await until(() => closes.length === 2);
  assert.deepEqual(closes[1], { cancelled: true });
});

/** A response that records what is written and emits 'finish' and 'close' when told. */
class FakeResponse extends EventEmitter {
  writeHead(): this {
    return this;
  }
  write(): boolean {
    return true;
  }
  end(): this {
    return this;
  }
}

test('webExchange: a close after finish is whole, a close before it is cut', () => {
  const cuts: boolean[] = [];
  const whole = new FakeResponse();
  webExchange(Object.assign(new PassThrough(), { headers: {} }), whole).onClose((cut) => cuts.push(cut));
  whole.emit('finish');
  whole.emit('close');
  const cut = new FakeResponse();
  webExchange(Object.assign(new PassThrough(), { headers: {} }), cut).onClose((c) => cuts.push(c));
  cut.emit('close');
  assert.deepEqual(cuts, [false, true]);
});

test('a gRPC-Web call cut after its end was written (not yet gone out) is cancelled', async () => {
  const res = new FakeResponse();
  const body = new PassThrough();
  const ex = webExchange(
    Object.assign(body, { headers: { 'content-type': 'application/grpc-web' }, method: 'POST' }),
    res,
  );
  let call: WireCall | undefined;
  body.end(encodeFrame(Buffer.from('x')));
  await serveWebCall(ex, '/test.Echo/Unary', async (c) => {
    call = c;
    await handler(c);
  });
  assert.ok(call);
  assert.equal(call.signal.aborted, false, 'the call ended as it should');
  // The socket closes before the answer was all handed over: the client never took the status.
  res.emit('close');
  assert.deepEqual(await call.closed, { cancelled: true });
  assert.equal(call.signal.aborted, true);
});

test('a message over maxMessageBytes is RESOURCE_EXHAUSTED; the limit passes', async (t) => {
  const { port } = await withServer(t, handler, { maxMessageBytes: 10 });
  const ok = await webFetch(port, '/test.Echo/Unary', ['0123456789']);
  assert.equal(ok.trailers?.['grpc-status'], '0');
  const over = await webFetch(port, '/test.Echo/Unary', ['0123456789A']);
  assert.equal(over.headers.get('grpc-status'), String(GrpcStatus.RESOURCE_EXHAUSTED));
});

test('gRPC-Web over HTTP/2 (h2c): unary with the trailer frame', async (t) => {
  const { port } = await withServer(t);
  const session = h2connect(`http://127.0.0.1:${port}`);
  t.after(() => session.close());
  const { headers, body } = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      const req = session.request({
        ':method': 'POST',
        ':path': '/test.Echo/Unary',
        'content-type': 'application/grpc-web',
      });
      let headers: Record<string, unknown> = {};
      const chunks: Buffer[] = [];
      req.on('response', (h) => (headers = h));
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve({ headers, body: Buffer.concat(chunks) }));
      req.on('error', reject);
      req.end(encodeFrame(Buffer.from('h2web')));
    },
  );
  assert.equal(headers[':status'], 200);
  assert.equal(headers['x-web'], 'true');
  const a = parseBody(body, false);
  assert.deepEqual(a.messages, ['h2web-0']);
  assert.equal(a.trailers?.['grpc-status'], '0');
});
