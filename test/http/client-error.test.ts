/** clientErrorHandler (src/http/client-error.ts) on its own: each parser refusal's status and code. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { clientErrorHandler } from '../../src/http/index.js';
import { parseResponse } from '../helpers/raw.js';

function refuse(code: string | undefined): { written: string; destroyed: boolean } {
  const socket = new PassThrough();
  let written = '';
  socket.on('data', (c: Buffer) => (written += c.toString()));
  const err = Object.assign(new Error('parse error'), code === undefined ? {} : { code });
  clientErrorHandler(err, socket);
  return { written, destroyed: socket.destroyed };
}

for (const [code, status, errorCode] of [
  ['HPE_HEADER_OVERFLOW', 431, 'header_too_large'],
  ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout'],
  ['HPE_INVALID_METHOD', 400, 'validation_error'],
  [undefined, 400, 'validation_error'],
] as const) {
  test(`${code ?? 'an error without a code'}: ${status} ${errorCode}, connection closed`, () => {
    const { written, destroyed } = refuse(code);
    const res = parseResponse(written);
    assert.equal(res.status, status);
    assert.equal(res.headers['connection'], 'close');
    assert.equal((JSON.parse(res.body) as { error: { code: string } }).error.code, errorCode);
    assert.equal(destroyed, true);
  });
}

test('a connection the client already reset gets nothing written', () => {
  const { written, destroyed } = refuse('ECONNRESET');
  assert.equal(written, '');
  assert.equal(destroyed, false);
});
