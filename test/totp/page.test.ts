/** The /2fa page: served without login on the bare and tools hosts, self-contained, script allowed by CSP hash. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import vm from 'node:vm';
import { startTotpApp } from './helpers.js';

void test('GET /2fa serves the page, self-contained, with a CSP naming its inline script and style', async () => {
  const app = await startTotpApp();
  try {
    for (const [url, host] of [
      ['/2fa', 'localhost'],
      ['/2fa/', 'localhost'],
      ['/2fa', 'tools.localhost:8080'],
    ] as const) {
      const res = await app.fastify.inject({ method: 'GET', url, headers: { host } });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      const html = res.body;
      // The form, the QR drop zone and the code display.
      for (const needle of [
        'name="issuer"',
        'name="secret"',
        'name="algorithm"',
        'name="digits"',
        'name="period"',
        'id="drop"',
        'type="file"',
        "'qrcode'",
        'expiresAt',
        '/2FA/TOTP/',
      ])
        assert.ok(html.includes(needle), needle);
      // No external assets.
      assert.doesNotMatch(html, /\s(src|href)=["']?(https?:)?\/\//i);
      const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
      const style = /<style>([\s\S]*)<\/style>/.exec(html)![1]!;
      const csp = String(res.headers['content-security-policy']);
      const sha = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
      assert.ok(csp.includes(`script-src ${sha(script)}`), csp);
      assert.ok(csp.includes(`style-src ${sha(style)}`), csp);
      assert.match(csp, /connect-src 'self'/);
      assert.match(csp, /default-src 'none'/);
      // The script at least parses.
      assert.doesNotThrow(() => new vm.Script(script));
    }
  } finally {
    await app.stop();
  }
});
