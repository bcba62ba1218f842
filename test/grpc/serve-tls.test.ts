/**
 * gRPC over TLS end to end (SPEC §13): the app serves HTTPS on port 0 with a test certificate; grpc-js
 * (ALPN h2 only) makes calls of every type, naming the endpoint by :authority `shop.localhost`; an
 * HTTPS request to the same port is still answered over HTTP/1.1; an endpoint with mTLS enabled lets
 * in only a call presenting one of its certificates.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { serverCertificate, type ServerCert } from '../mtls/tls-fixture.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint, createRule } from '../helpers/api-helpers.js';
import { grpc, protoClient, readStream, unary, uploadProto } from '../helpers/grpc.js';
import { SHOP_PROTO } from './fixtures.js';
import { failure, grpcEntries, grpcRule, type After } from './serve-fixture.js';

let server: ServerCert;
let app: TestApp;

before(async () => {
  server = await serverCertificate();
  app = await startApp({ tlsCert: server.certFile, tlsKey: server.keyFile }, { listen: true });
  for (const name of ['shop', 'locked']) {
    await createEndpoint(app, name);
    await uploadProto(app, name, SHOP_PROTO);
  }
});
after(() => app.stop());

/** A grpc-js client over TLS trusting the test certificate (issued to localhost), naming `endpoint`. */
function tlsClient(t: After, endpoint: string, own?: { cert: string; key: string }): grpc.Client {
  const credentials = own
    ? grpc.credentials.createSsl(Buffer.from(server.certPem), Buffer.from(own.key), Buffer.from(own.cert))
    : grpc.credentials.createSsl(Buffer.from(server.certPem));
  const client = protoClient(SHOP_PROTO, 'shop.v1.Shop', `127.0.0.1:${app.port}`, {
    authority: `${endpoint}.localhost`,
    credentials,
    channel: { 'grpc.ssl_target_name_override': 'localhost' },
  });
  t.after(() => client.close());
  return client;
}

type Method = (...a: unknown[]) => unknown;

void test('every call type over TLS, the endpoint named by :authority', async (t) => {
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Watch', {
      callType: 'server_streaming',
      streamCount: { min: 3, max: 3 },
      responses: [{ body: '{"id": "w"}' }],
    }),
  );
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Upload', {
      callType: 'client_streaming',
      responses: [{ body: `{"id": "{{body 'name'}}"}` }],
    }),
  );
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Chat', {
      callType: 'bidirectional_streaming',
      responses: [{ body: `{"name": "re {{body 'id'}}"}` }],
    }),
  );
  const client = tlsClient(t, 'shop');
  const c = client as unknown as Record<string, Method>;
  assert.equal(typeof (await unary(client, 'Get', { id: 'a' }))['id'], 'string');
  const watched = await readStream(
    c['Watch']!.call(client, { id: 'x' }) as grpc.ClientReadableStream<{ id: string }>,
  );
  assert.deepEqual(
    watched.map((m) => m.id),
    ['w', 'w', 'w'],
  );
  const uploaded = await new Promise<{ id: string }>((resolve, reject) => {
    const up = c['Upload']!.call(client, (err: Error | null, v: { id: string }) =>
      err ? reject(err) : resolve(v),
    ) as grpc.ClientWritableStream<unknown>;
    up.write({ name: 'only' });
    up.end();
  });
  assert.equal(uploaded.id, 'only');
  const chat = c['Chat']!.call(client) as grpc.ClientDuplexStream<unknown, { name: string }>;
  const replies = readStream(chat);
  chat.write({ id: '1' });
  chat.write({ id: '2' });
  chat.end();
  assert.deepEqual(
    (await replies).map((m) => m.name),
    ['re 1', 're 2'],
  );
  const entries = await grpcEntries(app, 'shop', 4);
  assert.deepEqual(entries.map((e) => e.grpc.callType).sort(), [
    'bidirectional_streaming',
    'client_streaming',
    'server_streaming',
    'unary',
  ]);
});

void test('an HTTPS request to the same port is answered over HTTP/1.1', async () => {
  const got = await new Promise<{ status: number; version: string; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: app.port,
        path: '/e/shop/plain',
        ca: server.certPem,
        agent: false,
        // A browser's offer: h2 and http/1.1; the port keeps HTTP/1.1 for it.
        ...{ ALPNProtocols: ['h2', 'http/1.1'] },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (s: string) => (body += s));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, version: res.httpVersion, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
  assert.equal(got.status, 200, got.body);
  assert.equal(got.version, '1.1');
});

void test('mTLS: an endpoint that requires a client certificate refuses a call without one', async (t) => {
  const made = await call(app, 'POST', '/endpoints/locked/mtls/certificates', { name: 'grpc client' });
  assert.equal(made.status, 201, made.text);
  const on = await call(app, 'PATCH', '/endpoints/locked/settings', { mtls: { enabled: true } });
  assert.equal(on.status, 200, on.text);
  const refused = await failure(unary(tlsClient(t, 'locked'), 'Get', { id: 'a' }));
  assert.equal(refused.code, grpc.status.PERMISSION_DENIED);
  const own = made.body as { cert: string; key: string };
  const ok = await unary(tlsClient(t, 'locked', own), 'Get', { id: 'a' });
  assert.equal(typeof ok['id'], 'string');
});
