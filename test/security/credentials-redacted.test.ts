/**
 * Stops: credentials kept verbatim in the history, readable by any key scoped to the endpoint (issue 11,
 * item 8). Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key and REDACT_HEADERS are
 * stored redacted unless KEEP_SENSITIVE_HEADERS; the echo still shows the sender what it sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactValue } from '../../src/http/index.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';

const SENT = {
  authorization: 'Bearer s3cret-token',
  'proxy-authorization': 'Basic dXNlcjpwYXNz',
  cookie: 'sid=abc; theme=dark',
  'x-api-key': 'key-123',
  'x-custom-token': 'custom-1',
  'x-plain': 'visible',
};

async function verbose(app: TestApp, ep: string) {
  await app.ctx.history.flush();
  return (await call(app, 'GET', `/endpoints/${ep}/requests?mode=verbose&limit=1`)).body.data[0] as {
    request: { headers: Record<string, string> };
    response: { headers: Record<string, string | string[]>; body: string };
  };
}

test('redacted forms keep the scheme, the cookie names and the Set-Cookie attributes', () => {
  assert.equal(redactValue('authorization', 'Bearer abc.def'), 'Bearer [REDACTED]');
  assert.equal(redactValue('authorization', 'justatoken'), '[REDACTED]');
  assert.equal(redactValue('cookie', 'a=1; b=2'), 'a=[REDACTED]; b=[REDACTED]');
  assert.equal(redactValue('set-cookie', 'sid=zz; Path=/; HttpOnly'), 'sid=[REDACTED]; Path=/; HttpOnly');
  assert.equal(redactValue('x-api-key', 'k'), '[REDACTED]');
});

test('a mock endpoint: request credentials and response Set-Cookie are stored redacted, sent as they are', async () => {
  const app = await startApp({ redactHeaders: ['x-custom-token'] });
  try {
    await createEndpoint(app, 'creds');
    await call(app, 'POST', '/endpoints/creds/rules', {
      conditions: [{ type: 'path', operator: 'equals', value: '/login' }],
      action: { type: 'mock', headers: [{ key: 'set-cookie', value: 'sid=zzz; Path=/' }], body: 'ok' },
    });
    const r = await app.inject({ method: 'GET', url: '/e/creds/login', headers: SENT });
    assert.equal(r.headers['set-cookie'], 'sid=zzz; Path=/', 'the client gets the real cookie');
    const e = await verbose(app, 'creds');
    assert.equal(e.request.headers['authorization'], 'Bearer [REDACTED]');
    assert.equal(e.request.headers['proxy-authorization'], 'Basic [REDACTED]');
    assert.equal(e.request.headers['cookie'], 'sid=[REDACTED]; theme=[REDACTED]');
    assert.equal(e.request.headers['x-api-key'], '[REDACTED]');
    assert.equal(e.request.headers['x-custom-token'], '[REDACTED]');
    assert.equal(e.request.headers['x-plain'], 'visible');
    assert.equal(e.response.headers['set-cookie'], 'sid=[REDACTED]; Path=/');
  } finally {
    await app.stop();
  }
});

test('the echo shows the sender its credentials; the recorded echo answer carries them redacted', async () => {
  const app = await startApp();
  try {
    const r = await app.inject({ method: 'GET', url: '/e/echo/x', headers: SENT });
    assert.equal(JSON.parse(r.body).headers.authorization, 'Bearer s3cret-token');
    const e = await verbose(app, 'echo');
    assert.equal(e.request.headers['authorization'], 'Bearer [REDACTED]');
    const recorded = JSON.parse(e.response.body) as { headers: Record<string, string> };
    assert.equal(recorded.headers['authorization'], 'Bearer [REDACTED]');
    assert.equal(recorded.headers['cookie'], 'sid=[REDACTED]; theme=[REDACTED]');
    assert.equal(recorded.headers['x-plain'], 'visible');
    assert.doesNotMatch(e.response.body, /s3cret-token|key-123|abc/);
  } finally {
    await app.stop();
  }
});

test('KEEP_SENSITIVE_HEADERS keeps them verbatim (the operator opted in)', async () => {
  const app = await startApp({ keepSensitiveHeaders: true });
  try {
    await app.inject({ method: 'GET', url: '/e/echo/x', headers: SENT });
    const e = await verbose(app, 'echo');
    assert.equal(e.request.headers['authorization'], 'Bearer s3cret-token');
  } finally {
    await app.stop();
  }
});
