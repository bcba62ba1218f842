/** Which kind of spec an upload is (src/api/spec-kind.ts): type, file name, Content-Type, then text. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  GRPC_CONTENT_TYPES,
  GRPC_FILE_EXTENSIONS,
  SNIFF_BYTES,
  looksLikeProto,
  specKindOf,
} from '../../src/api/spec-kind.js';

const YAML = Buffer.from('openapi: 3.0.3\ninfo: { title: T, version: "1" }\npaths: {}\n');
const PROTO = Buffer.from('syntax = "proto3";\nservice S {}\n');

test('a .proto statement after whitespace and comments is recognised; YAML and JSON are not', () => {
  for (const start of [
    'syntax = "proto3";',
    'syntax="proto2";',
    'edition = "2023";',
    'package a.b;',
    'import "x.proto";',
    'option go_package = "x";',
    'service S {}',
    'message M {}',
    'enum E {}',
  ])
    assert.equal(looksLikeProto(`\uFEFF  // a comment\n/* a\nblock */\n\t${start}`), true, start);
  for (const text of [
    'openapi: 3.0.3',
    '{"openapi":"3.1.0"}',
    'swagger: "2.0"',
    'package: x',
    'syntaxes = 1',
    '',
    '// only a comment',
    '/* unterminated',
    'servicex S {}',
  ])
    assert.equal(looksLikeProto(text), false, text);
});

test('the scan reads at most SNIFF_BYTES: a statement after that much comment is not seen', () => {
  const pad = (n: number): string => `//${'x'.repeat(n - 3)}\n`;
  assert.equal(looksLikeProto(`${pad(SNIFF_BYTES - 20)}syntax = "proto3";`), true);
  assert.equal(looksLikeProto(`${pad(SNIFF_BYTES)}syntax = "proto3";`), false);
});

test('specKindOf: forced type first, then the file name, the body Content-Type, the text', () => {
  assert.equal(specKindOf({ forced: 'grpc', data: YAML }), 'grpc');
  assert.equal(specKindOf({ forced: 'openapi', fileName: 'a.proto', data: PROTO }), 'openapi');
  for (const ext of GRPC_FILE_EXTENSIONS) {
    assert.equal(specKindOf({ fileName: `API${ext.toUpperCase()}`, data: YAML }), 'grpc', ext);
  }
  assert.equal(specKindOf({ fileName: 'openapi.yaml', data: YAML }), 'openapi');
  assert.equal(specKindOf({ fileName: 'user.txt', data: PROTO }), 'grpc');
  for (const type of GRPC_CONTENT_TYPES) {
    assert.equal(
      specKindOf({ contentType: `${type.toUpperCase()}; charset=utf-8`, data: YAML }),
      'grpc',
      type,
    );
    // A multipart part's type does not count: clients label any file application/octet-stream.
    assert.equal(specKindOf({ fileName: 'openapi.yaml', contentType: type, data: YAML }), 'openapi', type);
  }
  assert.equal(specKindOf({ contentType: 'application/yaml', data: YAML }), 'openapi');
  assert.equal(specKindOf({ contentType: 'text/plain', data: PROTO }), 'grpc');
  assert.equal(specKindOf({ data: Buffer.from([0x0a, 0x00, 0xff]) }), 'openapi');
});
