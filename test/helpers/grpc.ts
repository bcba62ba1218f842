/**
 * gRPC test clients: @grpc/grpc-js with the service loaded from proto text (@grpc/proto-loader), aimed
 * at an endpoint by `:authority` (`<name>.localhost`) or by the `x-mockingbird-endpoint` metadata.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import * as loader from '@grpc/proto-loader';
import { adminAuth, type TestApp } from './app.js';

export { grpc };

export interface ClientOptions {
  /** The `:authority` the client sends (`shop.localhost`): names the endpoint. */
  authority?: string;
  /** TLS credentials (default: plaintext, h2c). */
  credentials?: grpc.ChannelCredentials;
  /** More channel options (`grpc.ssl_target_name_override`). */
  channel?: grpc.ClientOptions;
}

/** A grpc-js client of `service` (fully qualified) from `proto` text, at `address` (`127.0.0.1:port`). */
export function protoClient(
  proto: string,
  service: string,
  address: string,
  o: ClientOptions = {},
): grpc.Client {
  const dir = mkdtempSync(join(tmpdir(), 'mb-grpc-client-'));
  try {
    const file = join(dir, 'service.proto');
    writeFileSync(file, proto);
    const def = loader.loadSync(file, { keepCase: true, defaults: false, oneofs: true, longs: String });
    const pkg = grpc.loadPackageDefinition(def);
    let ctor: unknown = pkg;
    for (const part of service.split('.')) ctor = (ctor as Record<string, unknown>)[part];
    const Client = ctor as typeof grpc.Client;
    const options: grpc.ClientOptions = { ...o.channel };
    if (o.authority) options['grpc.default_authority'] = o.authority;
    return new Client(address, o.credentials ?? grpc.credentials.createInsecure(), options);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Callback<T> = (err: grpc.ServiceError | null, value?: T) => void;

/** A unary call as a promise: the answer, or the ServiceError. */
export function unary<T = Record<string, unknown>>(
  client: grpc.Client,
  method: string,
  request: unknown,
  metadata = new grpc.Metadata(),
  options: grpc.CallOptions = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!;
    const cb: Callback<T> = (err, value) => (err ? reject(err) : resolve(value as T));
    fn.call(client, request, metadata, options, cb);
  });
}

/** Reads a server stream to its end: the messages, then the status (an error status rejects with the messages seen). */
export function readStream<T = Record<string, unknown>>(
  call: grpc.ClientReadableStream<T> | grpc.ClientDuplexStream<unknown, T>,
): Promise<T[]> {
  const got: T[] = [];
  return new Promise((resolve, reject) => {
    call.on('data', (m: T) => got.push(m));
    call.on('error', (err: grpc.ServiceError) => reject(Object.assign(err, { messages: got })));
    call.on('end', () => resolve(got));
  });
}

/** Uploads `proto` to endpoint `ep`'s specs and waits for its job to complete. */
export async function uploadProto(app: TestApp, ep: string, proto: string): Promise<void> {
  const r = await app.inject({
    method: 'POST',
    url: `/api/v2/endpoints/${ep}/specs`,
    headers: { ...adminAuth, 'content-type': 'text/plain' },
    payload: proto,
  });
  assert.equal(r.statusCode, 202, r.body);
  const { jobId } = JSON.parse(r.body) as { jobId: string };
  for (let i = 0; i < 200; i++) {
    const j = await app.inject({
      method: 'GET',
      url: `/api/v2/endpoints/${ep}/jobs/${jobId}`,
      headers: adminAuth,
    });
    const status = (JSON.parse(j.body) as { status: string }).status;
    if (status === 'COMPLETED') return;
    assert.notEqual(status, 'FAILED', j.body);
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`the upload job of ${ep} did not complete`);
}
