/**
 * Security requirements in contract checking (SPEC §7; src/oas/security.ts): each scheme kind with a
 * credential present and absent (apiKey in header, query, cookie; http basic and bearer; oauth2 and
 * openIdConnect as a bearer; Swagger 2.0's basic and apiKey), alternatives OR-ed, schemes of one
 * requirement AND-ed, the operation's `security` over the document's, and `[]` turning it off.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileSpec, type CompiledSpec } from '../../src/oas/compile.js';
import { checkRequest } from '../../src/oas/contract-request.js';
import { parseCookies } from '../../src/oas/security.js';
import { req } from '../mock/rule-helpers.js';

const ok = { responses: { '200': { description: 'ok' } } };

const DOC = {
  openapi: '3.0.3',
  info: { title: 's', version: '1' },
  security: [{ key: [] }],
  paths: {
    '/default': { get: ok },
    '/open': { get: { ...ok, security: [] } },
    '/anonymous-or-key': { get: { ...ok, security: [{}, { key: [] }] } },
    '/query': { get: { ...ok, security: [{ q: [] }] } },
    '/cookie': { get: { ...ok, security: [{ c: [] }] } },
    '/basic': { get: { ...ok, security: [{ basic: [] }] } },
    '/bearer': { get: { ...ok, security: [{ bearer: [] }] } },
    '/oauth': { get: { ...ok, security: [{ oauth: ['read'] }] } },
    '/oidc': { get: { ...ok, security: [{ oidc: [] }] } },
    '/either': { get: { ...ok, security: [{ basic: [] }, { q: [] }] } },
    '/both': { get: { ...ok, security: [{ key: [], q: [] }] } },
    '/unknown': { get: { ...ok, security: [{ nowhere: [] }] } },
  },
  components: {
    securitySchemes: {
      key: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      q: { type: 'apiKey', in: 'query', name: 'api_key' },
      c: { type: 'apiKey', in: 'cookie', name: 'token' },
      basic: { type: 'http', scheme: 'basic' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      oauth: { type: 'oauth2', flows: { implicit: { authorizationUrl: 'https://x.example/a', scopes: {} } } },
      oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://x.example/.well-known/openid-configuration' },
    },
  },
};

async function security(spec: CompiledSpec, path: string, headers: Record<string, string> = {}) {
  const r = await req('GET', path, { headers });
  const m = spec.match('GET', r.pathname);
  assert.ok(m);
  return checkRequest(spec, m, r).violations.filter((v) => v.in === 'security');
}

async function allowed(spec: CompiledSpec, path: string, headers: Record<string, string> = {}) {
  return (await security(spec, path, headers)).length === 0;
}

test('apiKey in a header, the query or a cookie: present passes, absent is one violation', async () => {
  const spec = await compileSpec(DOC, false);
  assert.equal(await allowed(spec, '/default', { 'x-api-key': 'k' }), true);
  const [v] = await security(spec, '/default');
  assert.deepEqual(v, {
    in: 'security',
    path: 'key',
    message: 'No credential the operation accepts: it wants key (the header X-API-Key).',
  });
  assert.equal(await allowed(spec, '/query?api_key=1'), true);
  assert.equal(await allowed(spec, '/query?other=1'), false);
  assert.equal(await allowed(spec, '/cookie', { cookie: 'a=b; token=t' }), true);
  assert.equal(await allowed(spec, '/cookie', { cookie: 'a=b' }), false);
  assert.equal(await allowed(spec, '/cookie'), false);
});

test('http basic and bearer need their scheme in Authorization; oauth2 and openIdConnect a bearer', async () => {
  const spec = await compileSpec(DOC, false);
  assert.equal(await allowed(spec, '/basic', { authorization: 'Basic dTpw' }), true);
  assert.equal(await allowed(spec, '/basic', { authorization: 'Bearer t' }), false);
  assert.equal(
    await allowed(spec, '/basic', { authorization: 'Basic ' }),
    false,
    'a scheme without a credential',
  );
  assert.equal(await allowed(spec, '/bearer', { authorization: 'bearer abc' }), true);
  assert.equal(await allowed(spec, '/bearer'), false);
  assert.equal(await allowed(spec, '/oauth', { authorization: 'Bearer abc' }), true);
  assert.equal(await allowed(spec, '/oauth', { authorization: 'Basic abc' }), false);
  assert.equal(await allowed(spec, '/oidc', { authorization: 'Bearer abc' }), true);
  assert.equal(await allowed(spec, '/oidc'), false);
});

test('alternatives are OR-ed, schemes of one requirement AND-ed', async () => {
  const spec = await compileSpec(DOC, false);
  assert.equal(await allowed(spec, '/either', { authorization: 'Basic x' }), true);
  assert.equal(await allowed(spec, '/either?api_key=1'), true);
  const [v] = await security(spec, '/either');
  assert.equal(v?.path, 'basic|q');
  assert.match(v?.message ?? '', /basic \(Authorization: Basic …\), or q \(the query parameter api_key\)/);
  assert.equal(await allowed(spec, '/both?api_key=1', { 'x-api-key': 'k' }), true);
  assert.equal(await allowed(spec, '/both?api_key=1'), false);
  assert.equal(await allowed(spec, '/both', { 'x-api-key': 'k' }), false);
  assert.equal((await security(spec, '/both'))[0]?.path, 'key+q');
});

test("the operation's security replaces the document's; [] and {} need nothing; an undefined scheme is not held against the request", async () => {
  const spec = await compileSpec(DOC, false);
  assert.equal(await allowed(spec, '/open'), true);
  assert.equal(await allowed(spec, '/anonymous-or-key'), true);
  assert.equal(await allowed(spec, '/unknown'), true);
  assert.equal(
    await allowed(spec, '/query', { 'x-api-key': 'k' }),
    false,
    'the document-level key does not count',
  );
});

test('Swagger 2.0: securityDefinitions basic and apiKey', async () => {
  const spec = await compileSpec(
    {
      swagger: '2.0',
      info: { title: 's', version: '1' },
      securityDefinitions: {
        basic: { type: 'basic' },
        key: { type: 'apiKey', in: 'header', name: 'api_key' },
        oauth: { type: 'oauth2', flow: 'implicit', authorizationUrl: 'https://x.example/a', scopes: {} },
      },
      security: [{ basic: [] }],
      paths: {
        '/a': { get: { responses: { 200: { description: 'ok' } } } },
        '/b': { get: { security: [{ key: [] }, { oauth: [] }], responses: { 200: { description: 'ok' } } } },
      },
    },
    false,
  );
  assert.equal(await allowed(spec, '/a', { authorization: 'Basic x' }), true);
  assert.equal(await allowed(spec, '/a'), false);
  assert.equal(await allowed(spec, '/b', { api_key: 'k' }), true);
  assert.equal(await allowed(spec, '/b', { authorization: 'Bearer t' }), true);
  assert.equal(await allowed(spec, '/b', { authorization: 'Basic x' }), false);
});

test('cookies: the last of a name wins, values percent-decoded, quotes dropped, junk ignored', () => {
  const c = parseCookies('a=1; b="x%20y"; junk; =v; a=2; bad=%zz');
  assert.deepEqual({ ...c }, { a: '2', b: 'x y', bad: '%zz' });
  assert.equal(Object.getPrototypeOf(c), null);
});
