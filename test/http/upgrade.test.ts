/**
 * Requests asking for a protocol upgrade other than the tunnel's WebSocket (curl's `Upgrade: h2c`)
 * once the server listens for upgrades: served as ordinary requests, connection closed after; one that
 * declares a body is refused with 400 rather than left waiting for bytes Node will not parse.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../helpers/endpoint.js';
import { rawRequest } from '../helpers/raw.js';

test('an h2c upgrade request is answered as a plain request; one with a body is 400', async (t) => {
  const app = await useApp(t, {}, { listen: true });
  const upgrade =
    'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n';
  const echo = await rawRequest(app.port, `GET /e/echo/x?a=1 HTTP/1.1\r\nHost: localhost\r\n${upgrade}\r\n`);
  assert.equal(echo.status, 200);
  assert.equal(JSON.parse(echo.body).path, '/x?a=1');
  assert.equal(echo.headers['connection'], 'close');
  const api = await rawRequest(
    app.port,
    `GET /api/v2/endpoints HTTP/1.1\r\nHost: localhost\r\n${upgrade}\r\n`,
  );
  assert.equal(api.status, 401);
  const withBody = await rawRequest(
    app.port,
    `POST /e/echo/x HTTP/1.1\r\nHost: localhost\r\n${upgrade}Content-Length: 2\r\n\r\nab`,
  );
  assert.equal(withBody.status, 400);
  assert.equal(JSON.parse(withBody.body).error.code, 'validation_error');
});
