/**
 * The error catalogue itself (src/errors.ts), as fastify tests its own: how many codes there are,
 * each code's status and message, the body every error is written as, and docs/api.md's error table
 * listing every code with its status and nothing else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AppError, ERRORS, errorBody, type ErrorCode } from '../../src/errors.js';

const EXPECTED: Record<ErrorCode, [number, string]> = {
  validation_error: [400, 'The request is not valid.'],
  missing_authentication: [401, 'An API key is required in the Authorization header.'],
  unauthorized_api_key: [401, 'The API key is not valid.'],
  contract_unauthorized: [401, "The request has no credential the endpoint's OpenAPI document asks for."],
  forbidden: [403, 'This API key may not access this resource.'],
  plan_limit: [403, "The endpoint's plan does not allow this."],
  not_found: [404, 'Not found.'],
  method_not_allowed: [405, 'This method is not supported here.'],
  request_timeout: [408, 'The request was not received in time.'],
  conflict: [409, 'The resource already exists.'],
  payload_too_large: [413, 'The request body is larger than the limit.'],
  uri_too_long: [414, 'A path segment is longer than the limit.'],
  header_too_large: [431, 'The request headers are larger than the limit.'],
  unsupported_media_type: [
    415,
    "The request's Content-Type is not one the endpoint's OpenAPI document takes.",
  ],
  qr_unreadable: [422, 'No readable QR code was found in the image.'],
  contract_violation: [422, "The request breaks the endpoint's OpenAPI document."],
  upgrade_required: [426, 'This route takes a WebSocket connection.'],
  rate_limited: [429, 'Too many requests; retry later.'],
  quota_exceeded: [429, "The endpoint's daily request quota is used up."],
  internal_error: [500, 'An internal error occurred.'],
  bad_gateway: [502, 'The upstream server could not be reached.'],
  target_refused: [502, 'The upstream address is not allowed.'],
  store_unavailable: [503, 'The database is busy or unreachable; retry shortly.'],
  qr_busy: [503, 'QR decoding is busy; retry in a few seconds.'],
  shutting_down: [503, 'The server is shutting down; retry on another instance.'],
  gateway_timeout: [504, 'The upstream server did not answer in time.'],
  loop_detected: [508, 'The request came back to this server: the proxy target leads here.'],
};

test('the catalogue has exactly the expected codes', () => {
  assert.equal(Object.keys(ERRORS).length, 27);
  assert.deepEqual(Object.keys(ERRORS).sort(), Object.keys(EXPECTED).sort());
});

for (const [code, [status, message]] of Object.entries(EXPECTED) as [ErrorCode, [number, string]][]) {
  test(`${code}: ${status}, its default message, the documented body`, () => {
    assert.equal(ERRORS[code].status, status);
    assert.equal(ERRORS[code].message, message);
    assert.ok(status >= 400 && status <= 599);
    const err = new AppError(code);
    assert.ok(err instanceof Error);
    assert.equal(err.status, status);
    assert.deepEqual(err.toBody(), { error: { code, message } });
    assert.deepEqual(errorBody(code, 'custom'), { error: { code, message: 'custom' } });
  });
}

test('details appear in the body only when there are some; headers ride along', () => {
  const d = [{ path: '/a', message: 'bad', received: '1' }];
  assert.deepEqual(errorBody('validation_error', 'm', d), {
    error: { code: 'validation_error', message: 'm', details: d },
  });
  assert.deepEqual(errorBody('validation_error', 'm', []), {
    error: { code: 'validation_error', message: 'm' },
  });
  assert.deepEqual(new AppError('rate_limited', undefined, { headers: { 'retry-after': '1' } }).headers, {
    'retry-after': '1',
  });
});

test("docs/api.md's error table lists every code with its status, and nothing else", () => {
  const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z_]+)` +\| (\d{3}) +\|/gm)].map(
    (m) => [m[1]!, Number(m[2])] as const,
  );
  const documented = Object.fromEntries(rows);
  assert.equal(rows.length, Object.keys(documented).length, 'a code is listed twice');
  assert.deepEqual(
    documented,
    Object.fromEntries(Object.entries(ERRORS).map(([code, e]) => [code, e.status])),
  );
});
