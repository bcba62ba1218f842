/**
 * The /2fa page is the dashboard's TOTP screen: served without login on the bare and tools hosts,
 * as the app's shell under a CSP that allows scripts and styles from this origin only. Its behaviour
 * (register, QR import, countdown, reload) is tested in a browser: test/dashboard/app.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTotpApp } from './helpers.js';

void test('GET /2fa serves the app without login, self-contained, with a CSP and no inline script', async () => {
  const app = await startTotpApp();
  try {
    for (const [url, host] of [
      ['/2fa', 'localhost'],
      ['/2fa/', 'localhost'],
      ['/2fa', 'tools.localhost:8080'],
    ] as const) {
      const res = await app.inject({ method: 'GET', url, headers: { host } });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      const html = res.body;
      // No external assets; scripts only by src from this origin.
      assert.doesNotMatch(html, /\s(src|href)=["']?(https?:)?\/\//i);
      assert.doesNotMatch(html, /<script>|<style>/);
      assert.match(html, /<script type="module" crossorigin src="\/assets\/[^"]+\.js"><\/script>/);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'/);
      assert.match(csp, /connect-src 'self'/);
      assert.doesNotMatch(csp, /unsafe-inline/);
    }
  } finally {
    await app.stop();
  }
});
