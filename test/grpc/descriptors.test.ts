import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonValue } from '@bufbuild/protobuf';
import { compileUpload } from '../../src/grpc/compile.js';
import { loadDescriptors } from '../../src/grpc/descriptors.js';
import { CallError, GrpcStatus } from '../../src/grpc/types.js';
import { SHOP_PROTO } from './fixtures.js';

const shop = loadDescriptors(
  compileUpload({ data: Buffer.from(SHOP_PROTO), filename: 'shop.proto' }).descriptorSet,
);

function callError(fn: () => unknown, code: number, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CallError, String(err));
    assert.equal(err.code, code);
    assert.match(err.message, message);
    return true;
  });
}

test('methods by path and services', () => {
  assert.deepEqual(
    [...shop.methods.keys()],
    ['/shop.v1.Shop/Get', '/shop.v1.Shop/Watch', '/shop.v1.Shop/Upload', '/shop.v1.Shop/Chat'],
  );
  assert.deepEqual(shop.services(), ['shop.v1.Shop']);
});

test('encode then decode round trips, with canonical JSON names and implicit defaults', () => {
  const answer = {
    id: 'i-1',
    name: 'Ada',
    priceCents: '1200',
    tagsById: { a: { label: 'x' } },
    status: 'ACTIVE',
    email: 'ada@example.com',
    note: 'n',
    createdAt: '2024-01-02T03:04:05Z',
  };
  const bytes = shop.encodeResponse('/shop.v1.Shop/Get', answer);
  const back = shop.messageToJson('shop.v1.Item', bytes);
  assert.deepEqual(back, answer);
  // Proto field names are read too; implicit defaults are written.
  const req = shop.encodeResponse('/shop.v1.Shop/Upload', { id: '' });
  assert.deepEqual(shop.decodeRequest('/shop.v1.Shop/Get', req), { id: '' });
  const snake = shop.encodeResponse('/shop.v1.Shop/Get', { price_cents: 5 });
  assert.equal((shop.messageToJson('shop.v1.Item', snake) as Record<string, JsonValue>)['priceCents'], '5');
});

test('encodeAnswer: the bytes of encodeResponse, and the JSON a decode of them gives', () => {
  const answers: JsonValue[] = [
    // As written: int64 a number, a snake_case name, defaults left out, the oneof's other member.
    { price_cents: 5, phone_ext: 7 },
    {},
    {
      id: 'i-1',
      name: 'Ada',
      priceCents: '1200',
      tagsById: { a: { label: 'x' }, b: {} },
      status: 1,
      email: 'ada@example.com',
      note: '',
      createdAt: '2024-01-02T03:04:05.500Z',
    },
  ];
  for (const answer of answers) {
    const { bytes, json } = shop.encodeAnswer('/shop.v1.Shop/Get', answer);
    assert.deepEqual(bytes, shop.encodeResponse('/shop.v1.Shop/Get', answer));
    assert.deepEqual(json, shop.messageToJson('shop.v1.Item', bytes), JSON.stringify(answer));
  }
  // The canonical form, not the answer as written.
  assert.deepEqual(shop.encodeAnswer('/shop.v1.Shop/Get', { price_cents: 5 }).json, {
    id: '',
    name: '',
    priceCents: '5',
    tagsById: {},
    status: 'STATUS_UNSPECIFIED',
  });
  callError(
    () => shop.encodeAnswer('/shop.v1.Shop/Get', { name: 5 }),
    GrpcStatus.INTERNAL,
    /^The answer does not fit shop\.v1\.Item: field "name": expected string, got 5$/,
  );
  callError(() => shop.encodeAnswer('/x.Y/Z', {}), GrpcStatus.UNIMPLEMENTED, /x\.Y\/Z/);
});

test('encodeResponse names the field that does not fit', () => {
  const get = (json: JsonValue) => () => shop.encodeResponse('/shop.v1.Shop/Get', json);
  callError(
    get({ name: 5 }),
    GrpcStatus.INTERNAL,
    /^The answer does not fit shop\.v1\.Item: field "name": expected string, got 5$/,
  );
  callError(
    get({ nope: 1 }),
    GrpcStatus.INTERNAL,
    /^The answer does not fit shop\.v1\.Item: field "nope" is not defined$/,
  );
  callError(
    get({ tagsById: { a: { label: 3 } } }),
    GrpcStatus.INTERNAL,
    /field "tagsById\.a\.label": expected string/,
  );
  callError(get({ createdAt: 'yesterday' }), GrpcStatus.INTERNAL, /field "createdAt": .*RFC 3339/);
  callError(get({ status: 'GONE' }), GrpcStatus.INTERNAL, /field "status"/);
  callError(get({ email: 'a', phoneExt: 1 }), GrpcStatus.INTERNAL, /oneof set multiple times/);
  callError(get([1]), GrpcStatus.INTERNAL, /The answer does not fit shop\.v1\.Item/);
});

test('unknown methods are UNIMPLEMENTED; bad request bytes INTERNAL', () => {
  callError(
    () => shop.decodeRequest('/shop.v1.Shop/Nope', new Uint8Array()),
    GrpcStatus.UNIMPLEMENTED,
    /shop\.v1\.Shop\/Nope/,
  );
  callError(() => shop.encodeResponse('/x.Y/Z', {}), GrpcStatus.UNIMPLEMENTED, /x\.Y\/Z/);
  callError(() => shop.generateResponse('/x.Y/Z'), GrpcStatus.UNIMPLEMENTED, /x\.Y\/Z/);
  callError(
    () => shop.decodeRequest('/shop.v1.Shop/Get', new Uint8Array([0x0a, 0x05, 0x41])),
    GrpcStatus.INTERNAL,
    /does not decode as shop\.v1\.GetRequest/,
  );
});

const ALL_TYPES = `syntax = "proto3";
package all;
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/empty.proto";
import "google/protobuf/any.proto";
import "google/protobuf/field_mask.proto";
enum Color { COLOR_UNSPECIFIED = 0; RED = 1; }
message Node { string name = 1; Node parent = 2; repeated Node children = 3; map<string, Node> by_name = 4; }
message All {
  double d = 1; float f = 2; int64 i64 = 3; uint64 u64 = 4; int32 i32 = 5; fixed64 x64 = 6; fixed32 x32 = 7;
  bool b = 8; string s = 9; bytes by = 10; uint32 u32 = 11; sfixed32 sx32 = 12; sfixed64 sx64 = 13;
  sint32 si32 = 14; sint64 si64 = 15; Color color = 16; repeated string emails = 17; map<int32, Color> m = 18;
  map<bool, string> flags = 19; google.protobuf.Timestamp at = 20; google.protobuf.Duration took = 21;
  google.protobuf.Struct meta = 22; google.protobuf.Value v = 23; google.protobuf.ListValue l = 24;
  google.protobuf.Int64Value w64 = 25; google.protobuf.BoolValue wb = 26; google.protobuf.BytesValue wby = 27;
  google.protobuf.Empty e = 28; google.protobuf.Any any = 29; google.protobuf.FieldMask mask = 30;
  Node tree = 31; oneof pick { string city = 32; int32 n = 33; } optional string uuid = 34;
  google.protobuf.NullValue nothing = 35; repeated Color colors = 36; repeated google.protobuf.Timestamp times = 37;
}
service Gen { rpc All(All) returns (All); rpc Tree(Node) returns (Node); }
`;

test('generateResponse fills every field type and always encodes; recursive types terminate', () => {
  const d = loadDescriptors(
    compileUpload({ data: Buffer.from(ALL_TYPES), filename: 'all.proto' }).descriptorSet,
  );
  for (let seed = 1; seed <= 20; seed++) {
    const json = d.generateResponse('/all.Gen/All', seed) as Record<string, JsonValue>;
    const bytes = d.encodeResponse('/all.Gen/All', json);
    assert.ok(bytes.length > 0);
    for (const k of [
      'd',
      'i64',
      'b',
      's',
      'by',
      'color',
      'emails',
      'm',
      'flags',
      'at',
      'took',
      'meta',
      'w64',
      'mask',
      'tree',
      'uuid',
    ])
      assert.ok(json[k] !== undefined, `${k} generated`);
    assert.equal(json['color'], 'RED', 'an enum takes its first non-zero value');
    assert.equal(typeof json['i64'], 'string', 'int64 is a string in proto3 JSON');
    assert.match(json['at'] as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    assert.match(json['uuid'] as string, /^[0-9a-f-]{36}$/);
    assert.ok(!('city' in json && 'n' in json), 'one member of a oneof');
    const emails = json['emails'] as string[];
    assert.ok(emails.length >= 1 && emails.length <= 3);
    const m = Object.keys(json['m'] as object);
    assert.ok(m.length >= 1 && m.length <= 2);
    const tree = json['tree'] as Record<string, JsonValue>;
    assert.equal(tree['parent'], undefined, 'a recursive field is left out');
    assert.deepEqual(tree['children'], []);
  }
  assert.deepEqual(
    d.generateResponse('/all.Gen/All', 7),
    d.generateResponse('/all.Gen/All', 7),
    'same seed, same answer',
  );
  const tree = d.generateResponse('/all.Gen/Tree', 3);
  assert.ok(d.encodeResponse('/all.Gen/Tree', tree));
});

test('generateResponse for a shop item encodes and decodes', () => {
  const json = shop.generateResponse('/shop.v1.Shop/Watch', 42) as Record<string, JsonValue>;
  assert.match(json['email'] as string, /@/);
  const bytes = shop.encodeResponse('/shop.v1.Shop/Watch', json);
  assert.ok(shop.messageToJson('shop.v1.Item', bytes));
});

test('encodeAnswer: a float is shown as written (as protojson prints a float32), not widened to a double', () => {
  const d = loadDescriptors(
    compileUpload({ data: Buffer.from(ALL_TYPES), filename: 'all.proto' }).descriptorSet,
  );
  const { bytes, json } = d.encodeAnswer('/all.Gen/All', { f: 0.1, d: 0.1 });
  const decoded = d.messageToJson('all.All', bytes) as Record<string, JsonValue>;
  const shown = json as Record<string, JsonValue>;
  assert.equal(shown['f'], 0.1);
  assert.equal(decoded['f'], Math.fround(0.1), 'the bytes hold the float32 nearest 0.1');
  assert.equal(shown['d'], 0.1);
  assert.equal(decoded['d'], 0.1);
  // Everything else is what a decode gives, for every generated answer.
  for (let seed = 1; seed <= 20; seed++) {
    const answer = d.encodeAnswer('/all.Gen/All', d.generateResponse('/all.Gen/All', seed));
    const back = d.messageToJson('all.All', answer.bytes) as Record<string, JsonValue>;
    const { f, ...rest } = answer.json as Record<string, JsonValue>;
    const { f: backF, ...backRest } = back;
    assert.deepEqual(rest, backRest, `seed ${seed}`);
    assert.equal(Math.fround(f as number), backF, `seed ${seed}: f`);
  }
});
