/**
 * Client certificates across instances (issue 33, item 6): a certificate issued through A is accepted
 * by B at once, and one revoked through A is refused by B from the next request on, also on a
 * keep-alive connection B let in before the revocation (the check runs per request, not at the TLS
 * handshake). Two apps in this process, serving HTTPS on one PostgreSQL database and one Redis of
 * the test's own (mTLS needs TLS settings the cluster harness does not give its instances).
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { after, before, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { clusterSkip } from '../helpers/cluster.js';
import { freshPgDatabase, suiteOrSkip } from '../helpers/pg.js';
import { startRedisServer, type TestRedis } from '../helpers/redis-server.js';
import { httpsGet, serverCertificate, type ServerCert } from '../mtls/tls-fixture.js';

suiteOrSkip('client certificates across two instances', clusterSkip, () => {
  let server: ServerCert;
  let redis: TestRedis;
  let db: { url: string; drop: () => Promise<void> };
  let a: TestApp;
  let b: TestApp;

  before(async () => {
    server = await serverCertificate();
    redis = await startRedisServer();
    db = await freshPgDatabase();
    const settings = {
      databaseUrl: db.url,
      redisUrl: redis.url,
      tlsCert: server.certFile,
      tlsKey: server.keyFile,
      secretKey: 'one secret key shared by both instances',
      plansFile: undefined,
    };
    a = await startApp(settings, { listen: true });
    b = await startApp(settings, { listen: true });
    await createEndpoint(a, 'vault');
    const r = await call(a, 'PATCH', '/endpoints/vault/settings', { mtls: { enabled: true } });
    assert.equal(r.status, 200, r.text);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await redis?.stop();
    await db?.drop();
  });

  async function issue(name: string): Promise<{ id: string; cert: string; key: string }> {
    const r = await call(a, 'POST', '/endpoints/vault/mtls/certificates', { name });
    assert.equal(r.status, 201, r.text);
    return r.body as { id: string; cert: string; key: string };
  }

  test('a certificate issued through A is accepted by B at once', async () => {
    // B holds the endpoint and the certificates it trusts, read before the new one existed.
    const first = await issue('first');
    assert.equal((await httpsGet(b.port, server, '/e/vault/x', first)).status, 200);
    const made = await issue('ci');
    assert.equal((await httpsGet(b.port, server, '/e/vault/x', made)).status, 200);
  });

  test('a certificate revoked through A is refused by B on its next request, on a kept-alive connection too', async () => {
    const made = await issue('to revoke');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      assert.equal((await httpsGet(b.port, server, '/e/vault/before', made, agent)).status, 200);
      const del = await call(a, 'DELETE', `/endpoints/vault/mtls/certificates/${made.id}`);
      assert.equal(del.status, 200, del.text);
      const again = await httpsGet(b.port, server, '/e/vault/after', made, agent);
      assert.equal(again.status, 403);
      assert.match(again.body, /unknown, revoked/);
      assert.equal((await httpsGet(b.port, server, '/e/vault/fresh', made)).status, 403);
    } finally {
      agent.destroy();
    }
  });
});
