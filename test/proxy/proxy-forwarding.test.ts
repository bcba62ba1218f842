/**
 * The HTTP proxy (SPEC §7) against local upstreams: what goes up (method, path and query under the
 * target's path, headers without hop-by-hop ones, Host rewritten, X-Forwarded-* added, the body), what
 * comes back (status, headers with repeats, the body streamed as it arrives), redirects passed back
 * and never followed, and both sides recorded as `proxy`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { historyOf, proxyApp, rawValues, send, upstream } from './proxy-helpers.js';

test('request headers: hop-by-hop removed, Host rewritten, X-Forwarded-* added, repeats kept', async () => {
  const up = await upstream((_req, res) => res.end('ok'));
  const app = await proxyApp(`${up.url}/base/`);
  try {
    const res = await send(`${app.endpointUrl}/users/7?q=1&q=2`, {
      headers: [
        'Host',
        `127.0.0.1:${app.port}`,
        'Connection',
        'keep-alive, X-Drop-Me',
        'X-Drop-Me',
        'secret',
        'Keep-Alive',
        'timeout=5',
        'Proxy-Authorization',
        'Basic abc',
        'TE',
        'trailers',
        'Upgrade',
        'h2c',
        'X-Multi',
        'one',
        'X-Multi',
        'two',
        'X-Forwarded-For',
        '203.0.113.9',
        'Accept',
        'application/json',
      ],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, 'ok');
    const [seen] = up.seen;
    assert.ok(seen);
    assert.equal(seen.method, 'GET');
    assert.equal(seen.url, '/base/users/7?q=1&q=2');
    assert.equal(seen.headers.host, `127.0.0.1:${up.port}`);
    for (const gone of ['x-drop-me', 'keep-alive', 'proxy-authorization', 'te', 'upgrade'])
      assert.equal(seen.headers[gone], undefined, gone);
    assert.notEqual(seen.headers.connection, 'keep-alive, X-Drop-Me');
    assert.deepEqual(rawValues(seen.rawHeaders, 'x-multi'), ['one', 'two']);
    assert.equal(seen.headers['x-forwarded-for'], '203.0.113.9, 127.0.0.1');
    assert.equal(seen.headers['x-forwarded-proto'], 'http');
    assert.equal(seen.headers['x-forwarded-host'], `127.0.0.1:${app.port}`);
    assert.equal(seen.headers.accept, 'application/json');
    assert.match(String(seen.headers['x-mockingbird-hop']), /^[\w-]+$/);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('response: status and headers come back, hop-by-hop removed, repeated Set-Cookie kept; both sides recorded', async () => {
  const up = await upstream((_req, res, body) => {
    res.writeHead(418, [
      ['Content-Type', 'text/plain'],
      ['Set-Cookie', 'a=1; Path=/'],
      ['Set-Cookie', 'b=2; Path=/'],
      ['Connection', 'X-Hop'],
      ['X-Hop', 'internal'],
      ['Keep-Alive', 'timeout=99'],
      ['X-Kept', 'yes'],
    ]);
    res.end(`teapot got ${body.toString()}`);
  });
  const app = await proxyApp(up.url);
  try {
    const res = await send(`${app.endpointUrl}/brew`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'earl grey',
    });
    assert.equal(res.status, 418);
    assert.equal(res.text, 'teapot got earl grey');
    assert.deepEqual(rawValues(res.rawHeaders, 'set-cookie'), ['a=1; Path=/', 'b=2; Path=/']);
    assert.equal(res.headers['x-kept'], 'yes');
    assert.equal(res.headers['x-hop'], undefined);
    assert.notEqual(res.headers['keep-alive'], 'timeout=99');
    assert.equal(up.seen[0]?.body.toString(), 'earl grey');
    const [entry] = await historyOf(app);
    assert.equal(entry?.behavior, 'proxy');
    assert.equal(entry?.status, 418);
    assert.equal(entry?.ruleMatched, false);
    assert.equal(entry?.requestBody, 'earl grey');
    assert.equal(entry?.responseBody, 'teapot got earl grey');
    assert.equal(entry?.responseHeaders['x-kept'], 'yes');
    assert.equal((entry?.responseHeaders['set-cookie'] as string[]).length, 2);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('a 1 MB body goes up and comes back whole', async () => {
  const up = await upstream((_req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-sha': sha(body) });
    res.end(body);
  });
  const app = await proxyApp(up.url);
  try {
    const big = randomBytes(1_000_000);
    const res = await send(`${app.endpointUrl}/upload`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: big,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-sha'], sha(big));
    assert.equal(res.body.length, big.length);
    assert.ok(res.body.equals(big));
    assert.equal(up.seen[0]?.body.length, 1_000_000);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('a chunked upstream answer streams: the first chunk arrives before the upstream has finished', async () => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const up = await upstream(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }); // no length: chunked
    res.write('first,');
    await released;
    res.end('second');
  });
  const app = await proxyApp(up.url);
  try {
    const http = await import('node:http');
    const text = await new Promise<string>((resolve, reject) => {
      http
        .get(`${app.endpointUrl}/stream`, (res) => {
          assert.equal(res.headers['transfer-encoding'], 'chunked');
          let got = '';
          res.on('data', (c: Buffer) => {
            got += c.toString();
            if (got === 'first,') release(); // the upstream is still holding its second chunk
          });
          res.on('end', () => resolve(got));
        })
        .on('error', reject);
    });
    assert.equal(text, 'first,second');
    const [entry] = await historyOf(app);
    assert.equal(entry?.responseBody, 'first,second');
    assert.equal(entry?.behavior, 'proxy');
  } finally {
    release();
    await app.stop();
    await up.close();
  }
});

test('status codes pass through unchanged', async () => {
  const up = await upstream((req, res) => {
    const status = Number(req.url?.slice(1));
    res.writeHead(status, { 'x-status': String(status) });
    res.end(status === 204 || status === 304 ? undefined : `status ${status}`);
  });
  const app = await proxyApp(up.url);
  try {
    for (const status of [201, 204, 304, 400, 404, 500, 503]) {
      const res = await send(`${app.endpointUrl}/${status}`);
      assert.equal(res.status, status);
      assert.equal(res.headers['x-status'], String(status));
      assert.equal(res.text, status === 204 || status === 304 ? '' : `status ${status}`);
    }
  } finally {
    await app.stop();
    await up.close();
  }
});

test('a redirect is passed back, never followed', async () => {
  const up = await upstream((req, res) => {
    if (req.url === '/old') {
      res.writeHead(302, { location: '/new' });
      res.end();
    } else res.end('new place');
  });
  const app = await proxyApp(up.url);
  try {
    const res = await send(`${app.endpointUrl}/old`);
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, '/new');
    assert.deepEqual(
      up.seen.map((s) => s.url),
      ['/old'],
    );
  } finally {
    await app.stop();
    await up.close();
  }
});

test('HEAD is forwarded as HEAD and its headers come back without a body', async () => {
  const up = await upstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '11' });
    res.end();
  });
  const app = await proxyApp(up.url);
  try {
    const res = await send(`${app.endpointUrl}/thing`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-length'], '11');
    assert.equal(res.body.length, 0);
    assert.equal(up.seen[0]?.method, 'HEAD');
  } finally {
    await app.stop();
    await up.close();
  }
});

function sha(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}
