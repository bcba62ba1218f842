/**
 * Serving the built dashboard: index.html for the app's routes, hashed assets with a long cache, a
 * CSP without inline scripts, only the files read at start (no traversal), and a clear answer when
 * the app is not built.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { startApp, type TestApp } from '../helpers/app.js';

let app: TestApp;
before(async () => {
  app = await startApp({}, { listen: true });
});
after(async () => {
  await app.stop();
});

function assertPolicy(headers: Record<string, unknown>, url: string): void {
  const csp = String(headers['content-security-policy']);
  assert.match(csp, /default-src 'self'/, url);
  assert.match(csp, /script-src 'self'(;|$)/, url);
  assert.match(csp, /style-src 'self'(;|$)/, url);
  assert.match(csp, /frame-ancestors 'none'/, url);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, url);
  assert.equal(headers['x-content-type-options'], 'nosniff', url);
}

void test('/ and the client routes answer index.html, not cached, under the CSP', async () => {
  for (const url of [
    '/',
    '/login',
    '/2fa',
    '/2fa/',
    '/endpoints',
    '/endpoints/shop/requests',
    '/endpoints/shop/rules',
  ]) {
    const r = await app.inject({ url, headers: { host: 'localhost:8080' } });
    assert.equal(r.statusCode, 200, url);
    assert.equal(r.headers['content-type'], 'text/html; charset=utf-8', url);
    assert.equal(r.headers['cache-control'], 'no-cache', url);
    assert.match(r.body, /<div id="app"><\/div>/, url);
    assertPolicy(r.headers, url);
  }
});

void test('hashed assets are served with their type and a year-long immutable cache', async () => {
  const js = await app.inject({ url: '/assets/app-0123abcd.js' });
  assert.equal(js.statusCode, 200);
  assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.match(js.body, /fixture/);
  const css = await app.inject({ url: '/assets/app-0123abcd.css?v=1' });
  assert.equal(css.statusCode, 200);
  assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
  const docs = await app.inject({ url: '/api-docs/init.js' });
  assert.equal(docs.statusCode, 200);
  assert.equal(docs.headers['cache-control'], 'no-cache');
});

void test('an unknown asset is a JSON 404', async () => {
  const r = await app.inject({ url: '/assets/nope-1234.js' });
  assert.equal(r.statusCode, 404);
  assert.equal(r.json().error.code, 'not_found');
});

/** A raw GET, so that neither a client library nor inject() normalises the path. */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: app.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

void test('no path reaches a file outside the served folders (directory traversal)', async () => {
  for (const path of [
    '/assets/../secret.txt',
    '/assets/..%2fsecret.txt',
    '/assets/%2e%2e/secret.txt',
    '/assets/%2e%2e%2fsecret.txt',
    '/assets/..%5csecret.txt',
    '/assets/../../package.json',
    '/assets/..%2f..%2fpackage.json',
    '/api-docs/../secret.txt',
    '/api-docs/%2e%2e%2f%2e%2e%2fpackage.json',
    '/assets//etc/passwd',
    '/assets/%2fetc%2fpasswd',
    '/assets/',
    '/assets',
    '/secret.txt',
    '/index.html/../secret.txt',
  ]) {
    const r = await rawGet(path);
    assert.doesNotMatch(r.body, /not served|"name": "mockingbird|root:/, path);
    assert.ok(r.status === 404 || r.status === 400, `${path}: ${r.status}`);
  }
});

void test('the app is served on the bare and tools hosts, not on an endpoint host', async () => {
  const tools = await app.inject({ url: '/', headers: { host: 'tools.localhost' } });
  assert.equal(tools.statusCode, 200);
  assert.match(tools.body, /id="app"/);
  const ep = await app.inject({ url: '/', headers: { host: 'echo.localhost' } });
  assert.doesNotMatch(ep.body, /id="app"/);
});

void test('without a build, / says how to build the dashboard (503), never a bare 404', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'mockingbird-noweb-'));
  const bare = await startApp({}, { dashboardDir: empty });
  try {
    const r = await bare.inject({ url: '/' });
    assert.equal(r.statusCode, 503);
    assert.match(r.body, /npm run build/);
    assertPolicy(r.headers, '/');
    assert.equal((await bare.inject({ url: '/assets/app.js' })).statusCode, 404);
  } finally {
    await bare.stop();
    rmSync(empty, { recursive: true, force: true });
  }
});

void test('GET /api/v2/docs is the Swagger UI shell: public, from this origin, no inline script', async () => {
  const r = await app.inject({ url: '/api/v2/docs' });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^text\/html/);
  assertPolicy(r.headers, '/api/v2/docs');
  assert.match(r.body, /<script src="\/api-docs\/swagger-ui-bundle\.js"><\/script>/);
  assert.match(r.body, /<script src="\/api-docs\/init\.js"><\/script>/);
  assert.doesNotMatch(
    r.body,
    /<script>|<style|https?:\/\//,
    'no inline script or style, nothing from elsewhere',
  );
});
