/** The CORS helper: one policy per use (the echo, the TOTP API, an endpoint's `cors.origins`). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corsHeaders, isPreflight, preflightHeaders, type CorsPolicy } from '../../src/http/index.js';

const LISTED: CorsPolicy = {
  origins: ['https://app.example.com'],
  methods: ['GET', 'POST'],
  maxAge: 600,
};

test('an open policy allows any origin, with or without an Origin header', () => {
  const open: CorsPolicy = { origins: '*', methods: ['GET'], maxAge: 1 };
  assert.deepEqual(corsHeaders(open), { 'access-control-allow-origin': '*' });
  assert.deepEqual(corsHeaders(open, { origin: 'https://x.test' }), { 'access-control-allow-origin': '*' });
});

test('an origin list answers with the request origin and Vary: Origin, and nothing for others', () => {
  assert.deepEqual(corsHeaders(LISTED, { origin: 'https://app.example.com' }), {
    'access-control-allow-origin': 'https://app.example.com',
    vary: 'Origin',
  });
  assert.deepEqual(corsHeaders(LISTED, { origin: 'https://evil.example.com' }), {});
  assert.deepEqual(corsHeaders(LISTED, {}), {});
  assert.deepEqual(preflightHeaders(LISTED, { origin: 'https://evil.example.com' }), {});
});

test('"*" in an origin list opens the policy', () => {
  assert.deepEqual(corsHeaders({ ...LISTED, origins: ['*'] }, { origin: 'https://any.test' }), {
    'access-control-allow-origin': '*',
  });
});

test('a preflight echoes the requested headers, or the default, and advertises methods and max age', () => {
  const h = preflightHeaders(LISTED, {
    origin: 'https://app.example.com',
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'x-a, x-b',
  });
  assert.equal(h['access-control-allow-methods'], 'GET, POST');
  assert.equal(h['access-control-allow-headers'], 'x-a, x-b');
  assert.equal(h['access-control-max-age'], '600');
  assert.equal(h['allow'], undefined);
  const d = preflightHeaders(
    { ...LISTED, defaultAllowHeaders: 'Content-Type', allowHeader: true },
    { origin: 'https://app.example.com' },
  );
  assert.equal(d['access-control-allow-headers'], 'Content-Type');
  assert.equal(d['allow'], 'GET, POST');
});

test('anyMethod adds a requested method outside the list, if it is a method token', () => {
  const any = { ...LISTED, origins: '*' as const, anyMethod: true };
  assert.equal(
    preflightHeaders(any, { 'access-control-request-method': 'PROPFIND' })['access-control-allow-methods'],
    'GET, POST, PROPFIND',
  );
  assert.equal(
    preflightHeaders(any, { 'access-control-request-method': 'BAD METHOD' })['access-control-allow-methods'],
    'GET, POST',
  );
  assert.equal(
    preflightHeaders(LISTED, {
      origin: 'https://app.example.com',
      'access-control-request-method': 'PROPFIND',
    })['access-control-allow-methods'],
    'GET, POST',
  );
});

test('a preflight is an OPTIONS with Access-Control-Request-Method', () => {
  assert.equal(isPreflight('OPTIONS', { 'access-control-request-method': 'GET' }), true);
  assert.equal(isPreflight('OPTIONS', {}), false);
  assert.equal(isPreflight('GET', { 'access-control-request-method': 'GET' }), false);
});
