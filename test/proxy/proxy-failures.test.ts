/**
 * When the proxy cannot or must not reach its target (SPEC §7, SECURITY.md): upstream down 502,
 * upstream slow 504 within PROXY_TIMEOUT, every refused target form 502 `target_refused` without a
 * connection being made, a proxy whose target is Mockingbird itself 508 `loop_detected` (found by the
 * hop header, not by address), TLS verified unless `ignoreSSLErrors`. Each answer is the JSON error
 * body, recorded as `proxy` with the reason among its problems.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../helpers/api-helpers.js';
import { historyOf, proxyApp, send, upstream } from './proxy-helpers.js';

/** A port nothing listens on (a server opened and closed). */
async function closedPort(): Promise<number> {
  const up = await upstream(() => undefined);
  await up.close();
  return up.port;
}

test('upstream down: 502 bad_gateway with the JSON error body, recorded as proxy', async () => {
  const port = await closedPort();
  const app = await proxyApp(`http://127.0.0.1:${port}`);
  try {
    const res = await send(`${app.endpointUrl}/x`);
    assert.equal(res.status, 502);
    assert.match(String(res.headers['content-type']), /application\/json/);
    const body = JSON.parse(res.text) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'bad_gateway');
    assert.match(body.error.message, /connection refused/);
    const [entry] = await historyOf(app);
    assert.equal(entry?.behavior, 'proxy');
    assert.equal(entry?.status, 502);
    assert.match(entry?.problems.join(' ') ?? '', /connection refused/);
  } finally {
    await app.stop();
  }
});

test('upstream slow: 504 gateway_timeout once PROXY_TIMEOUT has passed', async () => {
  const up = await upstream((_req, res) => void setTimeout(() => res.end('late'), 3000).unref());
  const app = await proxyApp(up.url, { proxyTimeout: 300 });
  try {
    const started = Date.now();
    const res = await send(`${app.endpointUrl}/slow`);
    const took = Date.now() - started;
    assert.equal(res.status, 504);
    assert.equal((JSON.parse(res.text) as { error: { code: string } }).error.code, 'gateway_timeout');
    assert.ok(took >= 250 && took < 2500, `took ${took} ms`);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('a body that stalls after the headers is cut after PROXY_TIMEOUT and recorded as cut', async () => {
  const up = await upstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial');
    // never ends
  });
  const app = await proxyApp(up.url, { proxyTimeout: 300 });
  try {
    const res = await send(`${app.endpointUrl}/stall`).catch((err: Error) => err);
    // The status went out at once; the body is cut: the client sees an aborted response.
    if (!(res instanceof Error)) assert.equal(res.status, 200);
    let entry;
    for (let i = 0; i < 50 && !entry; i++) {
      entry = (await historyOf(app))[0];
      if (!entry) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(entry?.responseBody, 'partial');
    assert.match(entry?.problems.join(' ') ?? '', /cut after 7 bytes/);
  } finally {
    await app.stop();
    await up.close();
  }
});

/** Sets the stored target directly, as settings saved before a check existed would be. */
async function storeTarget(app: Awaited<ReturnType<typeof proxyApp>>, targetUrl: string): Promise<void> {
  const ep = await app.ctx.store.getEndpoint('shop');
  await app.ctx.store.updateEndpointSettings('shop', { ...ep!.settings, proxy: { targetUrl } });
  app.ctx.endpoints.invalidate('shop');
}

async function refused(url: string): Promise<string> {
  const res = await send(url);
  assert.equal(res.status, 502, res.text);
  const body = JSON.parse(res.text) as { error: { code: string; message: string } };
  assert.equal(body.error.code, 'target_refused', res.text);
  return body.error.message;
}

test('refused targets: metadata and link-local addresses, in every notation', async () => {
  const app = await proxyApp('http://169.254.169.254/latest/meta-data');
  try {
    assert.match(await refused(`${app.endpointUrl}/`), /169\.254\.169\.254 is link-local.*PROXY_ALLOW/);
    await call(app, 'PATCH', '/endpoints/shop/settings', {
      proxy: { targetUrl: 'http://[::ffff:169.254.169.254]/' },
    });
    assert.match(await refused(`${app.endpointUrl}/`), /169\.254\.169\.254/);
    await call(app, 'PATCH', '/endpoints/shop/settings', { proxy: { targetUrl: 'http://[fd00:ec2::254]/' } });
    assert.match(await refused(`${app.endpointUrl}/`), /AWS metadata/);
    const [entry] = await historyOf(app);
    assert.equal(entry?.behavior, 'proxy');
    assert.match(entry?.problems.join(' ') ?? '', /refused/);
  } finally {
    await app.stop();
  }
});

test('refused targets: credentials in the URL and other schemes (400 when saved, 502 if stored anyway)', async () => {
  const up = await upstream((_req, res) => res.end('should not be reached'));
  const app = await proxyApp(null);
  try {
    const userinfo = await call(app, 'PATCH', '/endpoints/shop/settings', {
      proxy: { targetUrl: `http://x@127.0.0.1:${up.port}/` },
    });
    assert.equal(userinfo.status, 400);
    assert.equal(userinfo.body.error.details[0].path, '/proxy/targetUrl');
    assert.match(userinfo.body.error.details[0].message, /credentials/);
    const file = await call(app, 'PATCH', '/endpoints/shop/settings', {
      proxy: { targetUrl: 'file:///etc/passwd' },
    });
    assert.equal(file.status, 400);

    await storeTarget(app, `http://x@127.0.0.1:${up.port}/`);
    assert.match(await refused(`${app.endpointUrl}/`), /credentials/);
    await storeTarget(app, 'file:///etc/passwd');
    assert.match(await refused(`${app.endpointUrl}/`), /scheme file:/);
    assert.equal(up.seen.length, 0);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('refused targets: 0x7f.1 (and localhost) when loopback is denied by PROXY_DENY', async () => {
  const up = await upstream((_req, res) => res.end('should not be reached'));
  const app = await proxyApp(`http://0x7f.1:${up.port}/`, { proxyDeny: ['127.0.0.0/8', '::1/128'] });
  try {
    assert.match(await refused(`${app.endpointUrl}/`), /127\.0\.0\.1 is denied by PROXY_DENY/);
    await call(app, 'PATCH', '/endpoints/shop/settings', {
      proxy: { targetUrl: `http://localhost:${up.port}/` },
    });
    assert.match(await refused(`${app.endpointUrl}/`), /localhost \((127\.0\.0\.1|::1)\) is denied/);
    assert.equal(up.seen.length, 0);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('PROXY_ALLOW lets an operator open a denied range', async () => {
  const up = await upstream((_req, res) => res.end('reached'));
  const app = await proxyApp(up.url, { proxyDeny: ['127.0.0.0/8'], proxyAllow: [`127.0.0.1/32`] });
  try {
    const res = await send(`${app.endpointUrl}/`);
    assert.equal(res.status, 200);
    assert.equal(res.text, 'reached');
  } finally {
    await app.stop();
    await up.close();
  }
});

test('a proxy whose target is Mockingbird itself: 508 loop_detected, found by the hop header', async () => {
  const app = await proxyApp(null);
  try {
    // The target names this server by a name, not the address the request came in on.
    await call(app, 'PATCH', '/endpoints/shop/settings', {
      proxy: { targetUrl: `http://localhost:${app.port}/e/shop` },
    });
    const res = await send(`${app.endpointUrl}/again`);
    assert.equal(res.status, 508, res.text);
    assert.equal((JSON.parse(res.text) as { error: { code: string } }).error.code, 'loop_detected');
    const entries = await historyOf(app);
    // The request came in twice: the inner one refused, the outer one passing the refusal back.
    assert.equal(entries.length, 2);
    assert.ok(entries.every((e) => e.behavior === 'proxy' && e.status === 508 && e.path === '/again'));
    assert.ok(entries.some((e) => /x-mockingbird-hop/.test(Object.keys(e.requestHeaders).join(','))));
  } finally {
    await app.stop();
  }
});

test('an incoming request that names another instance only is proxied (the hop header grows)', async () => {
  const up = await upstream((req, res) => res.end(String(req.headers['x-mockingbird-hop'])));
  const app = await proxyApp(up.url);
  try {
    const res = await send(`${app.endpointUrl}/`, { headers: { 'x-mockingbird-hop': 'other-instance' } });
    assert.equal(res.status, 200);
    assert.match(res.text, /^other-instance, [\w-]+$/);
    const many = Array.from({ length: 8 }, (_, i) => `i${i}`).join(', ');
    const looped = await send(`${app.endpointUrl}/`, { headers: { 'x-mockingbird-hop': many } });
    assert.equal(looped.status, 508);
  } finally {
    await app.stop();
    await up.close();
  }
});

/** A self-signed certificate for 127.0.0.1, or undefined where openssl is missing. */
function selfSigned(): { key: Buffer; cert: Buffer } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'mb-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tls = selfSigned();
test(
  'TLS is verified unless the endpoint sets ignoreSSLErrors',
  { skip: tls ? false : 'openssl not available' },
  async () => {
    const server = https.createServer(tls!, (_req, res) => res.end('secure'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const app = await proxyApp(`https://127.0.0.1:${port}`);
    try {
      const strict = await send(`${app.endpointUrl}/`);
      assert.equal(strict.status, 502);
      assert.match(strict.text, /TLS failed/);
      await call(app, 'PATCH', '/endpoints/shop/settings', { proxy: { ignoreSSLErrors: true } });
      const lax = await send(`${app.endpointUrl}/`);
      assert.equal(lax.status, 200);
      assert.equal(lax.text, 'secure');
    } finally {
      await app.stop();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  },
);
