/**
 * The provisional compiler (src/grpc/compile.ts) and its worker (compile-run.ts): methods and call
 * types of a .proto or a descriptor set, refusals, and the worker's bounds (time, queue).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { AppError } from '../../src/errors.js';
import {
  compileInWorker,
  GRPC_COMPILES_AT_ONCE,
  GRPC_COMPILES_WAITING,
  GRPC_SPEC_LIMIT,
} from '../../src/grpc/index.js';
import { compileUpload, loadDescriptors } from '../../src/grpc/runtime.js';

const PROTO = `syntax = "proto3";
package a;
message M { string s = 1; }
service S { rpc U (M) returns (M); rpc B (stream M) returns (stream M); }
`;

function code(err: unknown): string | undefined {
  return err instanceof AppError ? err.code : undefined;
}

test('a .proto: methods with call types and fully qualified types; its file name kept', () => {
  const c = compileUpload({ data: Buffer.from(PROTO), filename: 'a.proto' });
  assert.equal(c.syntax, 'proto3');
  assert.deepEqual(c.files, ['a.proto']);
  assert.deepEqual(c.methods, [
    { service: 'a.S', method: 'U', name: 'a.S/U', callType: 'unary', inputType: 'a.M', outputType: 'a.M' },
    {
      service: 'a.S',
      method: 'B',
      name: 'a.S/B',
      callType: 'bidirectional_streaming',
      inputType: 'a.M',
      outputType: 'a.M',
    },
  ]);
  // The descriptor set holds the file and serves the methods it lists.
  assert.deepEqual([...loadDescriptors(c.descriptorSet).methods.keys()], ['/a.S/U', '/a.S/B']);
});

test('a descriptor set is kept as it came; one that defines no service is refused', () => {
  const set = create(FileDescriptorSetSchema, {
    file: [
      {
        name: 'x.proto',
        package: 'x',
        syntax: 'proto3',
        messageType: [{ name: 'M' }],
        service: [
          {
            name: 'S',
            method: [{ name: 'W', inputType: '.x.M', outputType: '.x.M', serverStreaming: true }],
          },
        ],
      },
    ],
  });
  const bytes = Buffer.from(toBinary(FileDescriptorSetSchema, set));
  const c = compileUpload({ data: bytes });
  assert.deepEqual(Buffer.from(c.descriptorSet), bytes);
  assert.equal(c.methods[0]?.callType, 'server_streaming');
  const bare = Buffer.from(
    toBinary(
      FileDescriptorSetSchema,
      create(FileDescriptorSetSchema, { file: [{ name: 'e.proto', messageType: [{ name: 'M' }] }] }),
    ),
  );
  assert.throws(
    () => compileUpload({ data: bare, filename: 'e.pb' }),
    (e) => code(e) === 'validation_error',
  );
});

test('over GRPC_SPEC_LIMIT the compiler refuses with payload_too_large', () => {
  const data = Buffer.alloc(GRPC_SPEC_LIMIT + 1, 0x20);
  assert.throws(
    () => compileUpload({ data }),
    (e) => code(e) === 'payload_too_large',
  );
});

test('in the worker: the compiler’s refusal crosses as its AppError; a compile past its time is refused', async () => {
  const ok = await compileInWorker({ data: Buffer.from(PROTO), filename: 'a.proto' });
  assert.equal(ok.methods.length, 2);
  await assert.rejects(
    compileInWorker({ data: Buffer.from('syntax = "proto3";\nmessage M {}\n') }),
    (e) => code(e) === 'validation_error' && /no service/.test((e as Error).message),
  );
  await assert.rejects(
    compileInWorker({ data: Buffer.from(PROTO) }, { timeoutMs: 1 }),
    (e) => code(e) === 'validation_error' && /within/.test((e as Error).message),
  );
});

test('GRPC_COMPILES_AT_ONCE + GRPC_COMPILES_WAITING compile; one more at the same moment is 429', async () => {
  const n = GRPC_COMPILES_AT_ONCE + GRPC_COMPILES_WAITING;
  const all = Array.from({ length: n + 1 }, () =>
    compileInWorker({ data: Buffer.from(PROTO) }).then(
      () => 'ok',
      (e: unknown) => code(e) ?? String(e),
    ),
  );
  const results = await Promise.all(all);
  assert.deepEqual(
    results.slice(0, n),
    Array.from({ length: n }, () => 'ok'),
  );
  assert.equal(results[n], 'rate_limited');
});
