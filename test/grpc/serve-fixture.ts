/**
 * Shared by the end-to-end gRPC tests (serve-*.test.ts): a gRPC rule's shape, an app listening on
 * port 0 with the shop proto uploaded to endpoint `shop`, a failed call's ServiceError, and the
 * history entries a call leaves (polled: the history is written after the call's status), and the
 * shop service as a descriptor for @connectrpc clients.
 */
import assert from 'node:assert/strict';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { createFileRegistry, fromBinary, type DescService } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { compileUpload } from '../../src/grpc/runtime.js';
import type { Config } from '../../src/config.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { grpc, protoClient, uploadProto } from '../helpers/grpc.js';
import { until } from '../helpers/until.js';
import { SHOP_PROTO } from './fixtures.js';

/** What `t.after` needs of a test context. */
export interface After {
  after(fn: () => unknown): void;
}

/** A gRPC rule: the method's condition (and more), the action `{ type: 'grpc', ...action }`. */
export function grpcRule(method: string, action: Record<string, unknown>, conditions: unknown[] = []) {
  return {
    method: 'POST',
    conditions: [{ type: 'grpc_method', value: method }, ...conditions],
    action: { type: 'grpc', ...action },
  };
}

/** An app on port 0 (stopped after the test) with endpoint `shop` and SHOP_PROTO uploaded to it. */
export async function shopApp(t: After, config: Partial<Config> = {}): Promise<TestApp> {
  const app = await startApp(config, { listen: true });
  t.after(() => app.stop());
  await createEndpoint(app, 'shop');
  await uploadProto(app, 'shop', SHOP_PROTO);
  return app;
}

/** A grpc-js client of shop.v1.Shop on the app's cleartext port, naming `endpoint` by :authority. */
export function shopClient(t: After, app: TestApp, endpoint = 'shop', proto = SHOP_PROTO): grpc.Client {
  const client = protoClient(proto, 'shop.v1.Shop', `127.0.0.1:${app.port}`, {
    authority: `${endpoint}.localhost`,
  });
  t.after(() => client.close());
  return client;
}

/**
 * A shop client whose connection passes a loopback relay that counts the bytes the server writes:
 * what a test reads to see that a cut call's stream stopped (nothing more written after it).
 */
export async function countedShopClient(
  t: After,
  app: TestApp,
): Promise<{ client: grpc.Client; fromServer: () => number }> {
  let bytes = 0;
  const sockets: Socket[] = [];
  const relay = createServer((down) => {
    const up = connect(app.port, '127.0.0.1');
    sockets.push(down, up);
    up.on('data', (chunk: Buffer) => (bytes += chunk.length));
    down.pipe(up).pipe(down);
    down.on('error', () => up.destroy());
    up.on('error', () => down.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    relay.close();
  });
  const port = (relay.address() as AddressInfo).port;
  const client = protoClient(SHOP_PROTO, 'shop.v1.Shop', `127.0.0.1:${port}`, {
    authority: 'shop.localhost',
  });
  t.after(() => client.close());
  return { client, fromServer: () => bytes };
}

/** The ServiceError a call ends with; fails the test when it succeeds. */
export async function failure(p: Promise<unknown>): Promise<grpc.ServiceError> {
  return (await p.then(
    (v) => assert.fail(`the call succeeded: ${JSON.stringify(v)}`),
    (e: unknown) => e,
  )) as grpc.ServiceError;
}

/** A gRPC history entry, brief or verbose. */
export interface GrpcEntry {
  id: string;
  behavior: string;
  path: string;
  grpc: { service: string; method: string; callType: string; status: number; statusMessage: string };
  request: { messages?: unknown[]; truncated?: boolean };
  response: { messages?: unknown[]; truncated?: boolean };
}

/** Waits for `count` gRPC entries of `ep` and returns them, newest first. */
export async function grpcEntries(app: TestApp, ep: string, count = 1): Promise<GrpcEntry[]> {
  let entries: GrpcEntry[] = [];
  await until(
    async () => {
      const r = await call(app, 'GET', `/endpoints/${ep}/requests?behavior=grpc&mode=verbose`);
      assert.equal(r.status, 200, r.text);
      entries = r.body.data as GrpcEntry[];
      return entries.length >= count;
    },
    5000,
    `fewer than ${count} gRPC entries of ${ep}`,
  );
  return entries;
}

/** shop.v1.Shop as a DescService, built at run time from SHOP_PROTO's compiled descriptor set. */
export function shopService(proto = SHOP_PROTO): DescService {
  const { descriptorSet } = compileUpload({ data: Buffer.from(proto), filename: 'shop.proto' });
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet));
  const service = registry.getService('shop.v1.Shop');
  assert.ok(service, 'shop.v1.Shop is in the compiled set');
  return service;
}
