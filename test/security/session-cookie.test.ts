/**
 * The dashboard's session (issue 30, item 1): the key traded for an HttpOnly, SameSite=Strict cookie
 * scoped to /api, taken by the API only from the dashboard's own origin, so that neither a script of
 * the dashboard's origin (it cannot read the cookie) nor a page of another origin (a sandboxed mock
 * answer's opaque origin, another endpoint's sub-domain) can act with it. The SPEC's Authorization
 * header works as before.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint, scopedKey } from '../helpers/api-helpers.js';

const HOST = 'localhost:8080';

describe('the dashboard session cookie', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
    await createEndpoint(app, 'shop');
    await createEndpoint(app, 'other');
  });
  after(() => app.stop());

  const inject = (
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    headers: Record<string, string> = {},
    payload?: object,
  ) =>
    app.inject({
      method,
      url,
      headers: { host: HOST, ...headers },
      ...(payload ? { payload } : {}),
    });
  const withCookie = (key: string, extra: Record<string, string> = {}) => ({
    cookie: `theme=dark; mb_session=${key}`,
    ...extra,
  });
  const code = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

  it('POST /session with the key in Authorization: the key comes back as an HttpOnly, SameSite=Strict cookie on /api', async () => {
    const r = await inject('POST', '/api/v2/session', { authorization: `Bearer ${ADMIN_KEY}` });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { endpoint: null });
    const cookie = String(r.headers['set-cookie']);
    assert.equal(cookie, `mb_session=${ADMIN_KEY}; Path=/api; HttpOnly; SameSite=Strict`);
    assert.equal(r.headers['cache-control'], 'no-store');
  });

  it('a wrong key is 401 and sets nothing; a session cannot be started from the cookie alone', async () => {
    const wrong = await inject('POST', '/api/v2/session', {
      authorization: 'mb_wrong_key_0123456789abcdefghijklmnop',
    });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.headers['set-cookie'], undefined);
    const again = await inject(
      'POST',
      '/api/v2/session',
      withCookie(ADMIN_KEY, { origin: `http://${HOST}` }),
    );
    assert.equal(again.statusCode, 400, again.body);
    assert.equal(code(again.body), 'validation_error');
    assert.equal(again.headers['set-cookie'], undefined);
  });

  it('the cookie authenticates reads of the same origin (no Origin, or this host), and writes that name this host', async () => {
    assert.equal((await inject('GET', '/api/v2/endpoints', withCookie(ADMIN_KEY))).statusCode, 200);
    const sameOrigin = await inject(
      'GET',
      '/api/v2/endpoints',
      withCookie(ADMIN_KEY, { origin: `http://${HOST}`, 'sec-fetch-site': 'same-origin' }),
    );
    assert.equal(sameOrigin.statusCode, 200, sameOrigin.body);
    const created = await inject(
      'POST',
      '/api/v2/keys',
      withCookie(ADMIN_KEY, { origin: `http://${HOST}`, 'sec-fetch-site': 'same-origin' }),
      {},
    );
    assert.equal(created.statusCode, 201, created.body);
  });

  it('refused (403) from another origin, an opaque one, a cross-site fetch, or a write without Origin; nothing made', async () => {
    const before = (await call(app, 'GET', '/keys')).body.data.length as number;
    for (const [method, headers] of [
      ['POST', { origin: 'null' }],
      ['POST', { origin: 'http://evil.example' }],
      ['POST', { origin: 'http://shop.localhost:8080' }],
      ['POST', {}],
      ['POST', { origin: `http://${HOST}`, 'sec-fetch-site': 'same-site' }],
      ['GET', { origin: 'null' }],
      ['GET', { 'sec-fetch-site': 'cross-site' }],
      ['GET', { origin: 'http://shop.localhost:8080', 'sec-fetch-site': 'same-site' }],
    ] as const) {
      const r = await inject(
        method,
        '/api/v2/keys',
        withCookie(ADMIN_KEY, headers),
        method === 'POST' ? {} : undefined,
      );
      assert.equal(r.statusCode, 403, `${method} ${JSON.stringify(headers)}: ${r.body}`);
      assert.equal(code(r.body), 'forbidden');
    }
    assert.equal((await call(app, 'GET', '/keys')).body.data.length, before);
  });

  it('the Authorization header works as the SPEC says, whatever cookie or origin comes with it', async () => {
    const r = await inject('POST', '/api/v2/keys', {
      authorization: ADMIN_KEY,
      origin: 'null',
      cookie: 'mb_session=mb_wrong_key_0123456789abcdefghijklmnop',
    });
    assert.equal(r.statusCode, 201, r.body);
    assert.equal((await inject('GET', '/api/v2/endpoints')).statusCode, 401);
  });

  it('a scoped key’s session is scoped; a revoked key’s session ends at once', async () => {
    const shopKey = await scopedKey(app, 'shop');
    const started = await inject('POST', '/api/v2/session', { authorization: shopKey });
    assert.deepEqual(started.json(), { endpoint: 'shop' });
    assert.equal((await inject('GET', '/api/v2/endpoints/shop/rules', withCookie(shopKey))).statusCode, 200);
    assert.equal((await inject('GET', '/api/v2/endpoints/other/rules', withCookie(shopKey))).statusCode, 403);
    const id = (await call(app, 'GET', '/keys')).body.data.find(
      (k: { endpoint: string | null }) => k.endpoint === 'shop',
    ).id as string;
    assert.equal((await call(app, 'DELETE', `/keys/${id}`)).status, 200);
    const revoked = await inject('GET', '/api/v2/endpoints/shop/rules', withCookie(shopKey));
    assert.equal(revoked.statusCode, 401);
    assert.equal(code(revoked.body), 'unauthorized_api_key');
  });

  it('DELETE /session clears the cookie, without a key', async () => {
    const r = await inject('DELETE', '/api/v2/session');
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { deleted: true });
    assert.equal(
      String(r.headers['set-cookie']),
      'mb_session=; Path=/api; HttpOnly; SameSite=Strict; Max-Age=0',
    );
  });
});

it('over HTTPS the cookie is Secure', async () => {
  const app = await startApp({ trustProxy: true });
  try {
    const r = await app.inject({
      method: 'POST',
      url: '/api/v2/session',
      headers: { authorization: ADMIN_KEY, 'x-forwarded-proto': 'https' },
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.match(String(r.headers['set-cookie']), /; Secure$/);
  } finally {
    await app.stop();
  }
});
