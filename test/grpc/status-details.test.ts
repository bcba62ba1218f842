import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRegistry, fromBinary, toJson, type JsonValue } from '@bufbuild/protobuf';
import { compileUpload } from '../../src/grpc/compile.js';
import { loadDescriptors } from '../../src/grpc/descriptors.js';
import {
  checkDetails,
  encodeStatus,
  googleRpcRegistry,
  GRPC_MAX_STATUS_DETAILS,
} from '../../src/grpc/status-details.js';
import { CallError, GrpcStatus } from '../../src/grpc/types.js';
import { AppError } from '../../src/errors.js';
import { SHOP_PROTO } from './fixtures.js';

const shop = loadDescriptors(
  compileUpload({ data: Buffer.from(SHOP_PROTO), filename: 'shop.proto' }).descriptorSet,
);
const T = 'type.googleapis.com/';

/** The Status decoded with @bufbuild/protobuf, its Anys resolved by google.rpc and the endpoint's types. */
function decode(bytes: Uint8Array): JsonValue {
  const { registry, status } = googleRpcRegistry();
  return toJson(status, fromBinary(status, bytes), { registry: createRegistry(registry, shop.jsonRegistry) });
}

test('google.rpc details round trip through a serialized Status', () => {
  const details: JsonValue[] = [
    {
      '@type': `${T}google.rpc.ErrorInfo`,
      reason: 'STOCKOUT',
      domain: 'shop.example',
      metadata: { zone: 'eu' },
    },
    { '@type': `${T}google.rpc.BadRequest`, fieldViolations: [{ field: 'id', description: 'required' }] },
    { '@type': `${T}google.rpc.RetryInfo`, retryDelay: '1.500s' },
    { '@type': `${T}google.rpc.DebugInfo`, stackEntries: ['a'], detail: 'd' },
    { '@type': `${T}google.rpc.QuotaFailure`, violations: [{ subject: 's', description: 'd' }] },
    {
      '@type': `${T}google.rpc.PreconditionFailure`,
      violations: [{ type: 'TOS', subject: 's', description: 'd' }],
    },
    { '@type': `${T}google.rpc.RequestInfo`, requestId: 'r', servingData: 'x' },
    {
      '@type': `${T}google.rpc.ResourceInfo`,
      resourceType: 't',
      resourceName: 'n',
      owner: 'o',
      description: 'd',
    },
    { '@type': `${T}google.rpc.Help`, links: [{ description: 'd', url: 'https://example.com' }] },
    { '@type': `${T}google.rpc.LocalizedMessage`, locale: 'en-US', message: 'm' },
  ];
  const bytes = encodeStatus(GrpcStatus.FAILED_PRECONDITION, 'no stock', details);
  assert.deepEqual(decode(bytes), { code: 9, message: 'no stock', details });
});

test("a detail of one of the endpoint's own message types", () => {
  const detail = { '@type': `${T}shop.v1.GetRequest`, id: 'x' };
  const bytes = encodeStatus(GrpcStatus.NOT_FOUND, 'gone', [detail], shop.jsonRegistry);
  assert.deepEqual(decode(bytes), { code: 5, message: 'gone', details: [detail] });
  assert.throws(
    () => encodeStatus(5, 'gone', [detail]),
    /unknown @type/,
    'without the registry it is unknown',
  );
});

test('an unknown @type or a detail that does not fit is a CallError naming the detail', () => {
  const bad = (details: JsonValue[], re: RegExp) =>
    assert.throws(
      () => encodeStatus(3, 'x', details, shop.jsonRegistry),
      (err: unknown) => err instanceof CallError && err.code === GrpcStatus.INTERNAL && re.test(err.message),
    );
  bad(
    [{ '@type': `${T}google.rpc.Nope` }],
    /^The status detail #1 unknown @type "type\.googleapis\.com\/google\.rpc\.Nope"/,
  );
  bad(
    [{ '@type': `${T}google.rpc.ErrorInfo` }, { '@type': `${T}google.rpc.ErrorInfo`, reason: 5 }],
    /detail #2 does not fit google\.rpc\.ErrorInfo/,
  );
  bad([{ reason: 'x' }], /detail #1 must have an "@type"/);
  bad(['text'], /detail #1 must be an object/);
});

test('checkDetails refuses with a pointer, and bounds the count at GRPC_MAX_STATUS_DETAILS', () => {
  assert.throws(
    () =>
      checkDetails(
        [{ '@type': `${T}google.rpc.ErrorInfo` }, { '@type': 'x/y.Z' }],
        undefined,
        '/action/details',
      ),
    (err: unknown) =>
      err instanceof AppError &&
      err.code === 'validation_error' &&
      err.details?.[0]?.path === '/action/details/1' &&
      /unknown @type "x\/y\.Z"/.test(err.details[0].message),
  );
  const info = { '@type': `${T}google.rpc.ErrorInfo`, reason: 'R' };
  checkDetails(Array<JsonValue>(GRPC_MAX_STATUS_DETAILS - 1).fill(info));
  checkDetails(Array<JsonValue>(GRPC_MAX_STATUS_DETAILS).fill(info));
  assert.throws(
    () => checkDetails(Array<JsonValue>(GRPC_MAX_STATUS_DETAILS + 1).fill(info)),
    /more than 16 details/,
  );
});

test('no details: a Status with code and message only', () => {
  assert.deepEqual(decode(encodeStatus(7, 'denied', [])), { code: 7, message: 'denied' });
});
