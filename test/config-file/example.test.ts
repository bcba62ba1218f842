/** The example configuration: a server started from examples/mockingbird.yaml answers each endpoint in it. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfigFile } from '../../src/config-file/index.js';
import { adminAuth, ALLOW_LOOPBACK, startApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { EXAMPLE, getJson } from './helpers.js';

describe('examples/mockingbird.yaml', () => {
  let app: TestApp;
  before(async () => {
    // The example's callout goes to this server's own webhook endpoint, on loopback.
    app = await startApp(ALLOW_LOOPBACK, { listen: true });
    process.env['WEBHOOK_URL'] = `${app.url}/e/webhooks/user-created`;
    try {
      await loadConfigFile(app.ctx, EXAMPLE);
    } finally {
      delete process.env['WEBHOOK_URL'];
    }
  });
  after(() => app.stop());

  it('users: GET /users/:id is made up from the id by a template', async () => {
    const r = await getJson(`${app.url}/e/users/users/42`);
    assert.equal(r.status, 200);
    const u = r.body as { id: string; name: string; email: string };
    assert.equal(u.id, '42');
    assert.ok(u.name.length > 0);
    assert.match(u.email, /@/);
  });

  it('users: GET /users?count=N lists N made-up users', async () => {
    const r = await getJson(`${app.url}/e/users/users?count=4`);
    assert.equal(r.status, 200);
    assert.equal((r.body as unknown[]).length, 4);
    assert.equal(((await getJson(`${app.url}/e/users/users`)).body as unknown[]).length, 3);
  });

  it('users: the seeded state item answers GET /health; the settings are applied', async () => {
    assert.deepEqual((await getJson(`${app.url}/e/users/health`)).body, { status: 'ok' });
    const s = await getJson(`${app.url}/api/v2/endpoints/users/settings`, { headers: adminAuth });
    assert.deepEqual((s.body as { cors: unknown }).cors, { origins: ['*'] });
  });

  it('users → webhooks: POST /users answers 201 at once and the callout reaches the webhook endpoint', async () => {
    const r = await getJson(`${app.url}/e/users/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada' }),
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body, { name: 'Ada', status: 'pending' });
    let seen: { method: string; path: string }[] = [];
    await until(
      async () => {
        const h = await getJson(`${app.url}/api/v2/endpoints/webhooks/requests`, { headers: adminAuth });
        seen = (h.body as { data: { method: string; path: string }[] }).data;
        return seen.length > 0;
      },
      5000,
      'the callout did not reach the webhook endpoint',
    );
    assert.equal(seen[0]!.method, 'POST');
    assert.match(seen[0]!.path, /user-created$/);
  });

  it('shop: /products is a CRUD collection', async () => {
    const created = await getJson(`${app.url}/e/shop/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Tea', price: 4 }),
    });
    assert.equal(created.status, 201);
    const id = (created.body as { id: string }).id;
    assert.deepEqual((await getJson(`${app.url}/e/shop/products/${id}`)).body, { id, name: 'Tea', price: 4 });
    assert.equal((await getJson(`${app.url}/e/shop/products/${id}`, { method: 'DELETE' })).status, 200);
    assert.equal((await getJson(`${app.url}/e/shop/products/${id}`)).status, 404);
  });

  it('loading the file again changes nothing that requests made (state seeds only fill what is missing)', async () => {
    await getJson(`${app.url}/api/v2/endpoints/users/state`, {
      method: 'PUT',
      headers: { ...adminAuth, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ type: 'string', key: 'mode', value: 'maintenance' }] }),
    });
    await loadConfigFile(app.ctx, EXAMPLE);
    assert.notDeepEqual((await getJson(`${app.url}/e/users/health`)).body, { status: 'ok' });
    const rules = await getJson(`${app.url}/api/v2/endpoints/users/rules`, { headers: adminAuth });
    assert.equal((rules.body as { data: unknown[] }).data.length, 4, 'rules replaced, not appended');
  });
});
