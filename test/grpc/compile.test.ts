import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, createFileRegistry, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
} from '@bufbuild/protobuf/wkt';
import { compileUpload, GRPC_SPEC_LIMIT } from '../../src/grpc/compile.js';
import { AppError } from '../../src/errors.js';
import { SHOP_PROTO } from './fixtures.js';

const compile = (text: string, filename = 'shop.proto', limits = {}) =>
  compileUpload({ data: Buffer.from(text), filename }, limits);

/** Asserts a refusal: validation_error whose one detail's path is `path` and message matches. */
function refused(fn: () => unknown, path: string, message: RegExp, code = 'validation_error'): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code);
    assert.equal(err.details?.[0]?.path, path);
    assert.match(err.details?.[0]?.message ?? '', message);
    return true;
  });
}

test('a proto3 file importing timestamp.proto compiles with all four call types', () => {
  const c = compile(SHOP_PROTO);
  assert.equal(c.syntax, 'proto3');
  assert.deepEqual(c.files, ['google/protobuf/timestamp.proto', 'shop.proto']);
  assert.deepEqual(
    c.methods.map((m) => [m.name, m.callType, m.inputType, m.outputType]),
    [
      ['shop.v1.Shop/Get', 'unary', 'shop.v1.GetRequest', 'shop.v1.Item'],
      ['shop.v1.Shop/Watch', 'server_streaming', 'shop.v1.GetRequest', 'shop.v1.Item'],
      ['shop.v1.Shop/Upload', 'client_streaming', 'shop.v1.Item', 'shop.v1.GetRequest'],
      ['shop.v1.Shop/Chat', 'bidirectional_streaming', 'shop.v1.GetRequest', 'shop.v1.Item'],
    ],
  );
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, c.descriptorSet));
  const item = registry.getMessage('shop.v1.Item');
  assert.ok(item);
  const byName = Object.fromEntries(item.fields.map((f) => [f.name, f]));
  assert.equal(byName['tags_by_id']?.fieldKind, 'map');
  assert.equal(byName['tags_by_id']?.jsonName, 'tagsById');
  assert.equal(byName['email']?.oneof?.name, 'contact');
  assert.equal(byName['phone_ext']?.oneof?.name, 'contact');
  assert.equal(byName['note']?.oneof, undefined, 'a proto3 optional is not a real oneof');
  assert.equal(byName['note']?.proto.proto3Optional, true);
  assert.equal(byName['status']?.enum?.typeName, 'shop.v1.Item.Status');
  assert.equal(byName['created_at']?.message?.typeName, 'google.protobuf.Timestamp');
  assert.deepEqual(
    item.proto.oneofDecl.map((o) => o.name),
    ['contact', '_note'],
  );
  const file = registry.getFile('shop.proto');
  assert.deepEqual(file?.proto.dependency, ['google/protobuf/timestamp.proto']);
  assert.equal(file?.proto.package, 'shop.v1');
});

test('proto2: groups, extensions, defaults and required fields', () => {
  const c = compile(
    `syntax = "proto2";
package legacy;
message Req {
  required string id = 1;
  optional int32 size = 2 [default = 10];
  optional group Extra = 3 { optional string note = 4; }
  extensions 100 to 200;
}
extend Req { optional string tag = 100; }
service Old { rpc Do(Req) returns (Req); }
`,
    'legacy.proto',
  );
  assert.equal(c.syntax, 'proto2');
  const reg = createFileRegistry(fromBinary(FileDescriptorSetSchema, c.descriptorSet));
  const req = reg.getMessage('legacy.Req');
  const proto = req?.proto;
  assert.equal(proto?.field.find((f) => f.name === 'id')?.label, FieldDescriptorProto_Label.REQUIRED);
  assert.equal(proto?.field.find((f) => f.name === 'size')?.defaultValue, '10');
  assert.equal(proto?.field.find((f) => f.name === 'extra')?.type, FieldDescriptorProto_Type.GROUP);
  assert.deepEqual(
    proto?.extensionRange.map((r) => [r.start, r.end]),
    [[100, 201]],
  );
  const ext = reg.get('legacy.tag');
  assert.equal(ext?.kind, 'extension');
});

test('the compiled descriptor set compiles again, recognised by content or by file name', () => {
  const first = compile(SHOP_PROTO);
  for (const filename of [undefined, 'shop.binpb', 'shop.pb', 'shop.desc', 'shop.protoset']) {
    const again = compileUpload(
      filename
        ? { data: Buffer.from(first.descriptorSet), filename }
        : { data: Buffer.from(first.descriptorSet) },
    );
    assert.deepEqual(again.methods, first.methods);
    assert.deepEqual(again.files, first.files);
  }
});

test('a hand-built set without its well-known import gets the bundled copy', () => {
  const file = create(FileDescriptorProtoSchema, {
    name: 'clock.proto',
    package: 'clock',
    syntax: 'proto3',
    dependency: ['google/protobuf/empty.proto', 'google/protobuf/timestamp.proto'],
    service: [
      {
        name: 'Clock',
        method: [
          { name: 'Now', inputType: '.google.protobuf.Empty', outputType: '.google.protobuf.Timestamp' },
        ],
      },
    ],
  });
  const data = toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: [file] }));
  const c = compileUpload({ data: Buffer.from(data), filename: 'clock.binpb' });
  assert.deepEqual(c.files, [
    'google/protobuf/empty.proto',
    'google/protobuf/timestamp.proto',
    'clock.proto',
  ]);
  assert.equal(c.methods[0]?.name, 'clock.Clock/Now');
});

test('refused: a descriptor set that lacks a dependency, naming it', () => {
  const file = create(FileDescriptorProtoSchema, {
    name: 'a.proto',
    dependency: ['b.proto'],
    service: [{ name: 'S', method: [{ name: 'M', inputType: '.B', outputType: '.B' }] }],
  });
  const data = toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: [file] }));
  refused(
    () => compileUpload({ data: Buffer.from(data), filename: 'x.pb' }),
    'a.proto',
    /imports "b\.proto".*--include_imports/,
  );
});

test('refused: a set whose type references do not link', () => {
  const file = create(FileDescriptorProtoSchema, {
    name: 'a.proto',
    service: [{ name: 'S', method: [{ name: 'M', inputType: '.Nope', outputType: '.Nope' }] }],
  });
  const data = toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: [file] }));
  refused(() => compileUpload({ data: Buffer.from(data), filename: 'x.pb' }), 'x.pb', /do not link/);
});

test('refused: bytes named .pb that are not a descriptor set', () => {
  refused(
    () => compileUpload({ data: Buffer.from([0xff, 0xff, 0xff]), filename: 'x.pb' }),
    'x.pb',
    /not a FileDescriptorSet/,
  );
});

test('refused: bytes that are neither UTF-8 text nor a set', () => {
  refused(() => compileUpload({ data: Buffer.from([0xc3, 0x28, 0xff]) }), 'upload.proto', /neither UTF-8/);
});

test('refused: a syntax error, with its file and line', () => {
  refused(() => compile('syntax = "proto3";\nmessage A {\n  int32 a = ;\n}\n'), 'shop.proto:3', /illegal id/);
});

test('refused: an import that is neither uploaded nor bundled, with its line', () => {
  refused(
    () =>
      compile(
        'syntax = "proto3";\n\nimport "other.proto";\nmessage A {}\nservice S { rpc M(A) returns (A); }\n',
      ),
    'shop.proto:3',
    /import "other\.proto" is neither in the upload nor one of the bundled/,
  );
});

test('refused: an unresolved type reference, in a field and in a method, with its line', () => {
  refused(
    () =>
      compile('syntax = "proto3";\nmessage A {\n  Missing m = 1;\n}\nservice S { rpc M(A) returns (A); }\n'),
    'shop.proto:3',
    /m: type "Missing" is not defined/,
  );
  refused(
    () => compile('syntax = "proto3";\nmessage A {}\nservice S {\n  rpc M(A) returns (Gone);\n}\n'),
    'shop.proto:4',
    /M: type "Gone" is not defined/,
  );
});

test('refused: a well-known type used without its import', () => {
  refused(
    () =>
      compile(
        'syntax = "proto3";\nmessage A {\n  google.protobuf.Timestamp t = 1;\n}\nservice S { rpc M(A) returns (A); }\n',
      ),
    'shop.proto:3',
    /google\.protobuf\.Timestamp is defined in "google\/protobuf\/timestamp\.proto", which is not imported/,
  );
});

test('refused: a proto with no service', () => {
  refused(
    () => compile('syntax = "proto3";\nmessage A {}\n'),
    'shop.proto',
    /^The proto defines no service; a gRPC mock needs one$/,
  );
});

test('refused: a proto3 enum whose first value is not zero, and editions in text', () => {
  refused(
    () =>
      compile(
        'syntax = "proto3";\nmessage A {}\nenum E {\n  ONE = 1;\n}\nservice S { rpc M(A) returns (A); }\n',
      ),
    'shop.proto:3',
    /first value of a proto3 enum must be zero/,
  );
  refused(() => compile('edition = "2023";\nmessage A {}\n'), 'shop.proto:1', /editions are not supported/);
});

test('the byte limit: GRPC_SPEC_LIMIT is 2.5 MiB; limit - 1 and limit pass, limit + 1 is refused', () => {
  assert.equal(GRPC_SPEC_LIMIT, 2.5 * 1024 * 1024);
  const text = SHOP_PROTO;
  const n = Buffer.byteLength(text);
  assert.ok(compile(text + ' ', 'shop.proto', { bytes: n + 2 }));
  assert.ok(compile(text, 'shop.proto', { bytes: n }));
  refused(
    () => compile(text, 'shop.proto', { bytes: n - 1 }),
    'shop.proto',
    new RegExp(`${n} bytes, more than the limit of ${n - 1}`),
    'payload_too_large',
  );
  refused(
    () => compileUpload({ data: Buffer.alloc(GRPC_SPEC_LIMIT + 1), filename: 'big.proto' }),
    'big.proto',
    /more than the limit/,
    'payload_too_large',
  );
});

/** A proto with `n` messages (plus one service: n + 1 types, n + 1 fields and methods). */
function manyMessages(n: number): string {
  const lines = ['syntax = "proto3";'];
  for (let i = 0; i < n; i++) lines.push(`message M${i} { int32 f = 1; }`);
  lines.push('service S { rpc Call(M0) returns (M0); }');
  return lines.join('\n');
}

test('the count limits: types and fields at limit - 1, limit and limit + 1', () => {
  const text = manyMessages(9); // 10 types, 9 fields + 1 method
  assert.ok(compile(text, 'a.proto', { maxTypes: 11 }));
  assert.ok(compile(text, 'a.proto', { maxTypes: 10 }));
  refused(
    () => compile(text, 'a.proto', { maxTypes: 9 }),
    'a.proto',
    /more than 9 messages, enums and services/,
  );
  assert.ok(compile(text, 'a.proto', { maxFields: 11 }));
  assert.ok(compile(text, 'a.proto', { maxFields: 10 }));
  refused(() => compile(text, 'a.proto', { maxFields: 9 }), 'a.proto', /more than 9 fields/);
});

/** Messages nested `depth` deep (each level one brace), and a service at depth 1. */
function nested(depth: number): string {
  let body = '';
  for (let i = depth; i >= 1; i--) body = `message N${i} { ${body} }`;
  return `syntax = "proto3";\n${body}\nservice S { rpc Call(N1) returns (N1); }`;
}

test('the nesting limit: text and sets at limit - 1, limit and limit + 1; deep nesting never overflows', () => {
  assert.ok(compile(nested(4), 'a.proto', { maxDepth: 5 }));
  assert.ok(compile(nested(5), 'a.proto', { maxDepth: 5 }));
  refused(() => compile(nested(6), 'a.proto', { maxDepth: 5 }), 'a.proto:2', /nesting deeper than 5 levels/);
  const set = compile(nested(6), 'a.proto').descriptorSet;
  assert.ok(compileUpload({ data: Buffer.from(set), filename: 'a.pb' }, { maxDepth: 6 }));
  refused(
    () => compileUpload({ data: Buffer.from(set), filename: 'a.pb' }, { maxDepth: 5 }),
    'a.proto',
    /N6: nesting deeper than 5/,
  );
  const deep = 'syntax = "proto3";\n' + 'message A {'.repeat(100_000) + '}'.repeat(100_000);
  refused(() => compile(deep, 'deep.proto'), 'deep.proto:2', /nesting deeper than 32 levels/);
});
