/**
 * HTTP/2 beside HTTP/1.1 on one port: h2c by preface and h2 by ALPN on TLS, with HTTP/1.1 served
 * exactly as before (keep-alive, pipelining, bytes that arrive one by one, the per-IP cap); the bounds
 * of the HTTP/2 side, and bad input that must not crash the server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, get, request as httpRequest } from 'node:http';
import { connect as h2connect, type ClientHttp2Session } from 'node:http2';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { capConnectionsPerIp } from '../../src/http/connections.js';
import { serveH2Call } from '../../src/grpc/h2-call.js';
import { acceptH2OverTls, isGrpc, isGrpcWeb, selectAlpn, H2_PREFACE } from '../../src/grpc/transport.js';
import { GrpcStatus } from '../../src/grpc/types.js';
import type { WireCall } from '../../src/grpc/wire-common.js';
import { serverCertificate } from '../mtls/tls-fixture.js';
import { until } from '../helpers/until.js';
import { echoClient, http1Handler, serveH2c, unary } from './wire-fixture.js';

async function echo(call: WireCall): Promise<void> {
  for await (const m of call.messages()) await call.send(m);
  call.end({ code: GrpcStatus.OK });
}

function raw(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = netConnect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

/** Everything a raw socket receives until the peer closes it (or `ms` pass). */
function collect(socket: Socket, ms = 2000): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    }, ms);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
  });
}

test('content types: isGrpc and isGrpcWeb', () => {
  assert.ok(isGrpc('application/grpc'));
  assert.ok(isGrpc('application/grpc+proto'));
  assert.ok(isGrpc('Application/GRPC; charset=utf-8'));
  assert.ok(!isGrpc('application/grpc-web'));
  assert.ok(!isGrpc('application/json'));
  assert.ok(!isGrpc(undefined));
  for (const t of ['application/grpc-web', 'application/grpc-web+proto', 'application/grpc-web-text']) {
    assert.ok(isGrpcWeb(t), t);
  }
  assert.ok(isGrpcWeb('application/grpc-web-text+proto'));
  assert.ok(!isGrpcWeb('application/grpc'));
  assert.ok(!isGrpcWeb('application/grpc-webx'));
});

test('ALPN: h2 only when offered without http/1.1', () => {
  assert.equal(selectAlpn(['h2']), 'h2');
  assert.equal(selectAlpn(['h2', 'http/1.1']), 'http/1.1');
  assert.equal(selectAlpn(['http/1.1', 'h2']), 'http/1.1');
  assert.equal(selectAlpn(['http/1.1']), 'http/1.1');
  assert.equal(selectAlpn(['spdy/3']), undefined);
});

test('h2c: grpc-js and HTTP/1.1 keep-alive share the port (two requests on one connection)', async (t) => {
  const served = await serveH2c(echo);
  const client = echoClient(served.port);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.after(async () => {
    client.close();
    agent.destroy();
    await served.close();
  });
  const { err, value } = await unary(client, Buffer.from('over h2c'));
  assert.equal(err, null);
  assert.equal(value?.toString(), 'over h2c');
  const ports: number[] = [];
  for (const path of ['/one', '/two']) {
    const body = await new Promise<string>((resolve, reject) => {
      get({ port: served.port, host: '127.0.0.1', path, agent }, (res) => {
        ports.push(res.socket.localPort ?? 0);
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve(text));
      }).on('error', reject);
    });
    assert.equal(body, `http1 ${path}`);
  }
  assert.equal(ports[0], ports[1]);
});

test('h2c: HTTP/1.1 pipelined, and a POST arriving byte by byte (its P matches the preface)', async (t) => {
  const served = await serveH2c(echo);
  t.after(() => served.close());
  const pipelined = await raw(served.port);
  const answer = collect(pipelined, 500);
  pipelined.write(
    'GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  );
  const text = await answer;
  assert.match(text, /http1 \/a[\s\S]*http1 \/b/);

  const slow = await raw(served.port);
  const slowAnswer = collect(slow, 1000);
  for (const ch of 'POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n') {
    slow.write(ch);
    if (ch === 'P' || ch === 'O') await sleep(20);
  }
  assert.match(await slowAnswer, /^HTTP\/1\.1 200[\s\S]*http1 \/slow$/);
});

test('h2c: the per-IP connection cap still counts every connection', async (t) => {
  const served = await serveH2c(echo);
  capConnectionsPerIp(served.server, 1);
  t.after(() => served.close());
  const first = await raw(served.port);
  const second = await raw(served.port);
  const closed = await collect(second, 1000);
  assert.equal(closed, '');
  assert.equal(second.destroyed, true);
  first.write('GET /still HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(await collect(first), /http1 \/still/);
});

test('h2c: a non-gRPC HTTP/2 request gets 415 with an explanation', async (t) => {
  const served = await serveH2c(echo);
  t.after(() => served.close());
  const session = h2connect(`http://127.0.0.1:${served.port}`);
  t.after(() => session.close());
  const { status, body } = await new Promise<{ status: unknown; body: string }>((resolve, reject) => {
    const req = session.request({ ':path': '/page' });
    let status: unknown;
    let body = '';
    req.on('response', (h) => (status = h[':status']));
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => resolve({ status, body }));
    req.on('error', reject);
  });
  assert.equal(status, 415);
  assert.match(body, /gRPC only/);
});

test('h2c: garbage after the preface closes that connection only', async (t) => {
  const served = await serveH2c(echo);
  const client = echoClient(served.port);
  t.after(async () => {
    client.close();
    await served.close();
  });
  const s = await raw(served.port);
  const closed = collect(s, 2000);
  s.write(Buffer.concat([H2_PREFACE, Buffer.from('this is not an HTTP/2 frame at all, nope nope nope')]));
  await closed;
  assert.equal(s.destroyed || s.readableEnded, true);
  const { err } = await unary(client, Buffer.from('alive'));
  assert.equal(err, null);
});

/** A HEADERS frame (END_HEADERS) opening stream `id` for POST /test.Echo/Bidi, application/grpc. */
function headersFrame(id: number): Buffer {
  const str = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s)]);
  const block = Buffer.concat([
    Buffer.from([0x83, 0x86]), // :method POST, :scheme http
    Buffer.from([0x04]),
    str('/test.Echo/Bidi'), // :path, literal without indexing
    Buffer.from([0x01]),
    str('127.0.0.1'), // :authority
    Buffer.from([0x0f, 0x10]),
    str('application/grpc'), // content-type (static index 31)
  ]);
  const head = Buffer.alloc(9);
  head.writeUIntBE(block.length, 0, 3);
  head[3] = 0x01;
  head[4] = 0x04;
  head.writeUInt32BE(id, 5);
  return Buffer.concat([head, block]);
}

test('maxConcurrentStreams: a client opening more streams than allowed is refused, the server lives', async (t) => {
  let calls = 0;
  const served = await serveH2c(
    async (call) => {
      calls++;
      await new Promise((r) => call.signal.addEventListener('abort', r));
    },
    { maxConcurrentStreams: 2 },
  );
  const client = echoClient(served.port);
  t.after(async () => {
    client.close();
    await served.close();
  });
  const s = await raw(served.port);
  s.on('error', () => undefined);
  const frames: Buffer[] = [H2_PREFACE, Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])];
  for (const id of [1, 3, 5, 7, 9]) frames.push(headersFrame(id));
  s.write(Buffer.concat(frames));
  await until(() => calls >= 2);
  await sleep(100);
  assert.equal(calls, 2);
  s.destroy();
  const echoServed = await serveH2c(echo, { maxConcurrentStreams: 2 });
  t.after(() => echoServed.close());
  const c2 = echoClient(echoServed.port);
  t.after(() => c2.close());
  const results = await Promise.all([1, 2, 3, 4, 5].map((i) => unary(c2, Buffer.from(`m${i}`))));
  assert.deepEqual(
    results.map((r) => r.value?.toString()),
    ['m1', 'm2', 'm3', 'm4', 'm5'],
  );
});

test('an HTTP/2 connection without streams is closed after idleTimeoutMs', async (t) => {
  const served = await serveH2c(echo, { idleTimeoutMs: 100 });
  t.after(() => served.close());
  const session = h2connect(`http://127.0.0.1:${served.port}`);
  session.on('error', () => undefined);
  await until(() => served.acceptor.sessionCount() === 1);
  await until(() => served.acceptor.sessionCount() === 0, 2000);
  await until(() => session.closed || session.destroyed);
});

test('server.close() sends GOAWAY to HTTP/2 connections so the server can close', async () => {
  const served = await serveH2c(echo);
  const client = echoClient(served.port);
  assert.equal((await unary(client, Buffer.from('x'))).err, null);
  await new Promise<void>((resolve) => served.server.close(() => resolve()));
  await until(() => served.acceptor.sessionCount() === 0);
  client.close();
});

test('TLS: grpc-js gets h2, a client offering http/1.1 keeps HTTP/1.1', async (t) => {
  const cert = await serverCertificate();
  const server = createHttpsServer({ cert: cert.certPem, key: cert.keyPem }, http1Handler(echo));
  const acceptor = acceptH2OverTls(server, (stream, headers) => void serveH2Call(stream, headers, echo));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const client = echoClient(port, grpc.credentials.createSsl(Buffer.from(cert.certPem)), {
    'grpc.ssl_target_name_override': 'localhost',
  });
  t.after(async () => {
    client.close();
    acceptor.close(true);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const { err, value } = await unary(client, Buffer.from('over tls'));
  assert.equal(err, null);
  assert.equal(value?.toString(), 'over tls');

  for (const ALPNProtocols of [['h2', 'http/1.1'], ['http/1.1'], undefined]) {
    const alpnOption = ALPNProtocols ? { ALPNProtocols } : {};
    const answer = await new Promise<{ version: string; alpn: unknown; body: string }>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/page',
          ca: cert.certPem,
          servername: 'localhost',
          agent: false,
          ...alpnOption,
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () =>
            resolve({
              version: res.httpVersion,
              alpn: (res.socket as { alpnProtocol?: unknown }).alpnProtocol,
              body,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(answer.version, '1.1');
    assert.equal(answer.body, 'http1 /page');
    assert.equal(answer.alpn, ALPNProtocols ? 'http/1.1' : false);
  }
});

test('h2c: a connection that closes before sending anything leaves no trace', async (t) => {
  const served = await serveH2c(echo);
  t.after(() => served.close());
  for (let i = 0; i < 5; i++) (await raw(served.port)).destroy();
  const half = await raw(served.port);
  half.end(H2_PREFACE.subarray(0, 10));
  await collect(half, 1000);
  const res = await new Promise<number | undefined>((resolve, reject) => {
    const req = httpRequest({ port: served.port, host: '127.0.0.1', path: '/ok' }, (r) => {
      r.resume();
      resolve(r.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(res, 200);
});

test('h2c: a silent connection goes to HTTP/1.1 after prefaceTimeoutMs (whose idle handling then applies)', async (t) => {
  const served = await serveH2c(echo, { prefaceTimeoutMs: 50 });
  t.after(() => served.close());
  const s = await raw(served.port);
  const closed = collect(s, 2000);
  await sleep(150);
  served.server.closeIdleConnections();
  assert.equal(await closed, '');
  assert.equal(s.destroyed, true);
});

test('server.close() drops a connection still silent before its first byte', async () => {
  const served = await serveH2c(echo, { prefaceTimeoutMs: 60_000 });
  const s = await raw(served.port);
  const closed = collect(s, 3000);
  await sleep(20);
  const start = Date.now();
  await new Promise<void>((resolve) => served.server.close(() => resolve()));
  await closed;
  assert.ok(Date.now() - start < 1000);
});

/** Status of one HTTP/2 request carrying a header of `bytes` bytes, or the error code it met. */
function requestWithHeader(port: number, bytes: number): Promise<unknown> {
  let resolve: (v: unknown) => void = () => undefined;
  return new Promise((r) => {
    resolve = r;
    const session = h2connect(`http://127.0.0.1:${port}`);
    session.on('error', (e: NodeJS.ErrnoException) => resolve(e.code));
    session.once('remoteSettings', () => send(session));
  });
  function send(session: ClientHttp2Session) {
    const req = session.request({
      ':method': 'POST',
      ':path': '/test.Echo/Unary',
      'content-type': 'application/grpc',
      'x-big': 'v'.repeat(bytes),
    });
    req.on('response', (h) => {
      resolve(h['grpc-status']);
      session.close();
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      resolve(e.code);
      session.destroy();
    });
    req.on('close', () => session.close());
    req.resume();
    req.end();
  }
}

test('maxHeaderListBytes: a header list over the bound is refused, below it is served', async (t) => {
  let calls = 0;
  const served = await serveH2c(
    async (call) => {
      calls++;
      call.end({ code: GrpcStatus.OK });
    },
    { maxHeaderListBytes: 4096 },
  );
  t.after(() => served.close());
  assert.equal(await requestWithHeader(served.port, 3000), '0');
  const refused = await requestWithHeader(served.port, 5000);
  assert.notEqual(refused, '0');
  assert.equal(calls, 1);
  assert.equal(await requestWithHeader(served.port, 100), '0');
});
