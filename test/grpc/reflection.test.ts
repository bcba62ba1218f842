import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createFileRegistry,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type JsonValue,
} from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { compileProtoSources, compileUpload } from '../../src/grpc/compile.js';
import { loadDescriptors } from '../../src/grpc/descriptors.js';
import { REFLECTION_PATHS, serveReflection } from '../../src/grpc/reflection.js';
import { REFLECTION_V1_PROTO } from '../../src/grpc/protos/reflection.js';
import { CallError, GrpcStatus, type CallEnd, type GrpcCall } from '../../src/grpc/types.js';
import { SHOP_PROTO } from './fixtures.js';

const shop = loadDescriptors(
  compileUpload({ data: Buffer.from(SHOP_PROTO), filename: 'shop.proto' }).descriptorSet,
);
const reflection = createFileRegistry(
  fromBinary(
    FileDescriptorSetSchema,
    compileProtoSources([{ name: 'grpc/reflection/v1/reflection.proto', text: REFLECTION_V1_PROTO }])
      .descriptorSet,
  ),
);
const Req = reflection.getMessage('grpc.reflection.v1.ServerReflectionRequest');
const Res = reflection.getMessage('grpc.reflection.v1.ServerReflectionResponse');
assert.ok(Req && Res);

/** A GrpcCall over arrays: the request messages given, what is sent and how it ends recorded. */
function fakeCall(messages: Uint8Array[], failWith?: CallError) {
  const sent: Uint8Array[] = [];
  const ends: CallEnd[] = [];
  const call: GrpcCall = {
    path: REFLECTION_PATHS[0],
    metadata: {},
    web: false,
    deadline: undefined,
    signal: new AbortController().signal,
    async *messages() {
      for (const m of messages) yield await Promise.resolve(m);
      if (failWith) throw failWith;
    },
    sendHeaders() {},
    send(message) {
      sent.push(message);
      return Promise.resolve();
    },
    end(end) {
      ends.push(end);
    },
    closed: Promise.resolve({ cancelled: false }),
  };
  return { call, sent, ends };
}

async function ask(
  requests: JsonValue[],
): Promise<{ answers: Record<string, JsonValue>[]; ends: CallEnd[] }> {
  const { call, sent, ends } = fakeCall(requests.map((r) => toBinary(Req!, fromJson(Req!, r))));
  await serveReflection(call, shop, 'v1');
  const answers = sent.map(
    (b) => toJson(Res!, fromBinary(Res!, b), { useProtoFieldName: true }) as Record<string, JsonValue>,
  );
  return { answers, ends };
}

/** The file names in a file_descriptor_response. */
function fileNames(answer: Record<string, JsonValue>): string[] {
  const files = (answer['file_descriptor_response'] as { file_descriptor_proto: string[] })
    .file_descriptor_proto;
  return files.map((b64) => fromBinary(FileDescriptorProtoSchema, Buffer.from(b64, 'base64')).name);
}

test('REFLECTION_PATHS are the v1 and v1alpha methods', () => {
  assert.deepEqual(REFLECTION_PATHS, [
    '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
    '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
  ]);
});

test('list_services: the endpoint services and reflection itself; one answer per request, then OK', async () => {
  const { answers, ends } = await ask([{ list_services: '' }, { list_services: '*', host: 'h' }]);
  assert.equal(answers.length, 2);
  assert.deepEqual(answers[0]?.['list_services_response'], {
    service: [
      { name: 'shop.v1.Shop' },
      { name: 'grpc.reflection.v1.ServerReflection' },
      { name: 'grpc.reflection.v1alpha.ServerReflection' },
    ],
  });
  assert.deepEqual(answers[1]?.['original_request'], { host: 'h', list_services: '*' });
  assert.equal(answers[1]?.['valid_host'], 'h');
  assert.deepEqual(ends, [{ code: 0 }]);
});

test('file_containing_symbol answers the file and its imports, for services, methods, messages and enums', async () => {
  for (const symbol of [
    'shop.v1.Shop',
    'shop.v1.Shop.Get',
    'shop.v1.Item',
    'shop.v1.Item.Status',
    'shop.v1.Item.name',
  ]) {
    const { answers } = await ask([{ file_containing_symbol: symbol }]);
    assert.deepEqual(fileNames(answers[0]!), ['shop.proto', 'google/protobuf/timestamp.proto'], symbol);
  }
  const own = await ask([{ file_containing_symbol: 'grpc.reflection.v1.ServerReflection' }]);
  assert.deepEqual(fileNames(own.answers[0]!), ['grpc/reflection/v1/reflection.proto']);
});

test('file_by_filename answers the file with its dependencies', async () => {
  const { answers } = await ask([
    { file_by_filename: 'shop.proto' },
    { file_by_filename: 'google/protobuf/timestamp.proto' },
  ]);
  assert.deepEqual(fileNames(answers[0]!), ['shop.proto', 'google/protobuf/timestamp.proto']);
  assert.deepEqual(fileNames(answers[1]!), ['google/protobuf/timestamp.proto']);
});

test('unknown symbols, files, types and extensions are NOT_FOUND in the stream, which goes on', async () => {
  const { answers, ends } = await ask([
    { file_containing_symbol: 'shop.v1.Nope' },
    { file_by_filename: 'nope.proto' },
    { all_extension_numbers_of_type: 'x.Y' },
    { file_containing_extension: { containing_type: 'shop.v1.Item', extension_number: 100 } },
    {},
    { list_services: '' },
  ]);
  for (const a of answers.slice(0, 4))
    assert.equal((a['error_response'] as { error_code: number }).error_code, GrpcStatus.NOT_FOUND);
  assert.match(
    String((answers[0]?.['error_response'] as { error_message: string }).error_message),
    /shop\.v1\.Nope/,
  );
  assert.equal(
    (answers[4]?.['error_response'] as { error_code: number }).error_code,
    GrpcStatus.INVALID_ARGUMENT,
  );
  assert.ok(answers[5]?.['list_services_response']);
  assert.deepEqual(ends, [{ code: 0 }]);
});

test('extensions: file_containing_extension and all_extension_numbers_of_type', async () => {
  const d = loadDescriptors(
    compileUpload({
      data: Buffer.from(
        'syntax = "proto2";\npackage e;\nmessage M { extensions 10 to 20; }\nextend M { optional int32 x = 11; optional int32 y = 12; }\nservice S { rpc C(M) returns (M); }\n',
      ),
      filename: 'e.proto',
    }).descriptorSet,
  );
  const { call, sent } = fakeCall(
    (
      [
        { file_containing_extension: { containing_type: 'e.M', extension_number: 12 } },
        { all_extension_numbers_of_type: 'e.M' },
      ] as JsonValue[]
    ).map((r) => toBinary(Req, fromJson(Req, r))),
  );
  await serveReflection(call, d, 'v1');
  const answers = sent.map(
    (b) => toJson(Res, fromBinary(Res, b), { useProtoFieldName: true }) as Record<string, JsonValue>,
  );
  assert.deepEqual(fileNames(answers[0]!), ['e.proto']);
  assert.deepEqual(answers[1]?.['all_extension_numbers_response'], {
    base_type_name: 'e.M',
    extension_number: [11, 12],
  });
});

test('v1alpha answers in its own message types', async () => {
  const { call, sent, ends } = fakeCall([toBinary(Req, fromJson(Req, { list_services: '' }))]);
  await serveReflection(call, shop, 'v1alpha');
  // v1 and v1alpha messages have the same field numbers: the answer decodes with either.
  const a = toJson(Res, fromBinary(Res, sent[0]!), { useProtoFieldName: true }) as Record<string, JsonValue>;
  assert.ok(a['list_services_response']);
  assert.deepEqual(ends, [{ code: 0 }]);
});

test('a request that is not a ServerReflectionRequest ends the call INVALID_ARGUMENT; a CallError ends with its code', async () => {
  const bad = fakeCall([new Uint8Array([0x1a, 0x05, 0x41])]);
  await serveReflection(bad.call, shop, 'v1');
  assert.equal(bad.ends[0]?.code, GrpcStatus.INVALID_ARGUMENT);
  assert.equal(bad.sent.length, 0);
  const cut = fakeCall([], new CallError(GrpcStatus.RESOURCE_EXHAUSTED, 'too big'));
  await serveReflection(cut.call, shop, 'v1');
  assert.deepEqual(cut.ends, [{ code: GrpcStatus.RESOURCE_EXHAUSTED, message: 'too big' }]);
});
