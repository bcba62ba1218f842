/**
 * Server reflection with a real client (SPEC §13): grpc-js loading grpc.reflection.v1 (and v1alpha)
 * from the protos Mockingbird ships, asking the endpoint `list_services` and
 * `file_containing_symbol`; the descriptors come back with their imports, an unknown symbol is
 * NOT_FOUND in the stream's error_response.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { REFLECTION_V1_PROTO, REFLECTION_V1ALPHA_PROTO } from '../../src/grpc/protos/reflection.js';
import { grpc, protoClient, readStream } from '../helpers/grpc.js';
import { shopApp, type After } from './serve-fixture.js';
import type { TestApp } from '../helpers/app.js';

interface ReflectionResponse {
  list_services_response?: { service: { name: string }[] };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

/** Asks the reflection service `version` each of `requests` on one stream; the answers in order. */
async function reflect(
  t: After,
  app: TestApp,
  version: 'v1' | 'v1alpha',
  requests: Record<string, string>[],
): Promise<ReflectionResponse[]> {
  const proto = version === 'v1' ? REFLECTION_V1_PROTO : REFLECTION_V1ALPHA_PROTO;
  const client = protoClient(proto, `grpc.reflection.${version}.ServerReflection`, `127.0.0.1:${app.port}`, {
    authority: 'shop.localhost',
  });
  t.after(() => client.close());
  const fn = (
    client as unknown as Record<string, () => grpc.ClientDuplexStream<unknown, ReflectionResponse>>
  )['ServerReflectionInfo']!;
  const stream = fn.call(client);
  const answers = readStream(stream);
  for (const r of requests) stream.write({ host: '', ...r });
  stream.end();
  return answers;
}

test('reflection v1 lists the endpoint services and gives shop.v1.Shop with timestamp.proto', async (t) => {
  const app = await shopApp(t);
  const [list, files, unknown] = await reflect(t, app, 'v1', [
    { list_services: '' },
    { file_containing_symbol: 'shop.v1.Shop' },
    { file_containing_symbol: 'shop.v1.Nope' },
  ]);
  assert.deepEqual(
    list!.list_services_response!.service.map((s) => s.name).sort(),
    // The reflection services themselves are listed too, as grpc-go and grpc-java list them.
    ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection', 'shop.v1.Shop'],
  );
  const protos = files!.file_descriptor_response!.file_descriptor_proto.map((b) =>
    fromBinary(FileDescriptorProtoSchema, b),
  );
  assert.equal(protos.length, 2, 'the file and its import');
  assert.ok(protos.some((p) => p.name === 'google/protobuf/timestamp.proto'));
  const shop = protos.find((p) => p.package === 'shop.v1')!;
  assert.deepEqual(
    shop.service.map((s) => s.name),
    ['Shop'],
  );
  assert.ok(shop.dependency.includes('google/protobuf/timestamp.proto'));
  assert.equal(unknown!.error_response!.error_code, grpc.status.NOT_FOUND);
});

test('reflection v1alpha answers the same listing', async (t) => {
  const app = await shopApp(t);
  const [list] = await reflect(t, app, 'v1alpha', [{ list_services: '' }]);
  assert.deepEqual(
    list!.list_services_response!.service.map((s) => s.name).sort(),
    // The reflection services themselves are listed too, as grpc-go and grpc-java list them.
    ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection', 'shop.v1.Shop'],
  );
});
