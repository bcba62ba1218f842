/**
 * gRPC-Web through the server (SPEC §13), with @connectrpc/connect-node's gRPC-Web transport: over
 * HTTP/1.1 in the path form (/e/shop/shop.v1.Shop/Get) and the host form (Host shop.localhost),
 * over HTTP/2 too; unary and server streaming; a CORS preflight and the CORS headers of an answer;
 * an unknown endpoint in the path form is NOT_FOUND.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcWebTransport } from '@connectrpc/connect-node';
import { createRule } from '../helpers/api-helpers.js';
import type { TestApp } from '../helpers/app.js';
import { pathFormOf } from '../../src/serve/grpc-door.js';
import { grpcRule, grpcEntries, shopApp, shopService } from './serve-fixture.js';

type Calls = Record<string, (...a: unknown[]) => unknown>;

/** A gRPC-Web client of shop.v1.Shop at `baseUrl` over `httpVersion`, with headers set on each call. */
function webClient(baseUrl: string, httpVersion: '1.1' | '2', headers: Record<string, string> = {}): Calls {
  const setHeaders: Interceptor = (next) => async (req) => {
    for (const [k, v] of Object.entries(headers)) req.header.set(k, v);
    return next(req);
  };
  const transport = createGrpcWebTransport({ baseUrl, httpVersion, interceptors: [setHeaders] });
  return createClient(shopService(), transport);
}

async function watchRule(app: TestApp): Promise<void> {
  await createRule(
    app,
    'shop',
    grpcRule('shop.v1.Shop/Watch', {
      callType: 'server_streaming',
      streamCount: { min: 3, max: 3 },
      responses: [{ body: `{"id": "{{body 'id'}}"}` }],
    }),
  );
}

/** A unary call and a server stream through `c`; asserts the answers. */
async function unaryAndStream(c: Calls): Promise<void> {
  const item = (await c['get']!({ id: 'w1' })) as { id: string };
  assert.ok(item.id.length > 0, 'a generated item');
  const got: string[] = [];
  for await (const m of c['watch']!({ id: 'z' }) as AsyncIterable<{ id: string }>) got.push(m.id);
  assert.deepEqual(got, ['z', 'z', 'z']);
}

test('gRPC-Web over HTTP/1.1 in the path form: unary and server streaming', async (t) => {
  const app = await shopApp(t);
  await watchRule(app);
  await unaryAndStream(webClient(`${app.url}/e/shop`, '1.1'));
  const [e] = await grpcEntries(app, 'shop', 2);
  assert.equal(e!.path, '/shop.v1.Shop/Watch');
  assert.equal(e!.grpc.callType, 'server_streaming');
});

test('gRPC-Web over HTTP/1.1 in the host form', async (t) => {
  const app = await shopApp(t);
  await watchRule(app);
  await unaryAndStream(webClient(app.url, '1.1', { host: `shop.localhost:${app.port}` }));
});

test('gRPC-Web over HTTP/2 (h2c), the path form and the metadata', async (t) => {
  const app = await shopApp(t);
  await watchRule(app);
  await unaryAndStream(webClient(app.url, '2', { 'x-mockingbird-endpoint': 'shop' }));
  await unaryAndStream(webClient(`${app.url}/e/shop`, '2'));
});

test('gRPC-Web to an endpoint that does not exist is NOT_FOUND', async (t) => {
  const app = await shopApp(t);
  const err = await (webClient(`${app.url}/e/nope`, '1.1')['get']!({ id: 'a' }) as Promise<unknown>).then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => ConnectError.from(e),
  );
  assert.equal(err.code, Code.NotFound);
  assert.match(err.rawMessage, /"nope" does not exist/);
});

test('a CORS preflight is answered 204; the answer to the call carries the CORS headers', async (t) => {
  const app = await shopApp(t);
  const url = `${app.url}/e/shop/shop.v1.Shop/Get`;
  const pre = await fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-grpc-web,x-user-agent',
    },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), 'https://app.example');
  assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
  assert.match(pre.headers.get('access-control-allow-headers') ?? '', /x-grpc-web/);
  await pre.arrayBuffer();
  // An empty GetRequest in one uncompressed frame.
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      origin: 'https://app.example',
      'content-type': 'application/grpc-web+proto',
      'x-grpc-web': '1',
    },
    body: new Uint8Array([0, 0, 0, 0, 0]),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example');
  assert.match(res.headers.get('access-control-expose-headers') ?? '', /grpc-status/);
  const body = Buffer.from(await res.arrayBuffer());
  assert.match(body.toString('latin1'), /grpc-status: ?0/);
});

test('pathFormOf: /e/<name>/ followed by a method path only', () => {
  assert.deepEqual(pathFormOf('/e/Shop/shop.v1.Shop/Get'), { name: 'shop', path: '/shop.v1.Shop/Get' });
  // A service named e without a package, a method path cut short, no name: not the path form.
  assert.equal(pathFormOf('/e/Get'), undefined);
  assert.equal(pathFormOf('/e/shop/'), undefined);
  assert.equal(pathFormOf('/e/shop/shop.v1.Shop'), undefined);
  assert.equal(pathFormOf('/e//shop.v1.Shop/Get'), undefined);
  assert.equal(pathFormOf('/e/shop/a/b/c'), undefined);
  assert.equal(pathFormOf('/shop.v1.Shop/Get'), undefined);
});
