/**
 * Stops: an HTML mock answer on the path form reading the admin key in the dashboard's tab and making a
 * new admin key with it (issue 30, item 1). In a real Chromium, logged in to the dashboard: a mocked page
 * opened in the dashboard's tab, and as a pop-up of the dashboard (with an opener), runs its script but
 * finds the key in no storage it can read, cannot reach the dashboard's window, and cannot call the API
 * with the session (no key is made, no endpoint listed). The SPEC's header auth keeps working meanwhile.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { browserSkip, launchBrowser, WEB_DIR, type TestBrowser } from '../helpers/browser.js';

const WAIT = { timeout: 15_000 };

/** What a hostile mock page tries, written into `data-result` on its body. */
const ATTACK = `<!doctype html><html><body><script>
(async () => {
  const out = {};
  const attempt = async (name, fn) => {
    try { out[name] = String(await fn()); } catch (e) { out[name] = 'blocked: ' + (e && e.name); }
  };
  let found = null;
  await attempt('sessionStorage', () => {
    found = sessionStorage.getItem('mockingbird.apiKey');
    return JSON.stringify(Object.assign({}, sessionStorage));
  });
  await attempt('localStorage', () => JSON.stringify(Object.assign({}, localStorage)));
  await attempt('cookie', () => document.cookie);
  await attempt('opener', () => window.opener ? JSON.stringify(Object.assign({}, window.opener.sessionStorage)) : 'none');
  const auth = found ? { authorization: 'Bearer ' + found } : {};
  await attempt('list', async () => {
    const r = await fetch('/api/v2/endpoints', { credentials: 'include', headers: auth });
    return r.status + ' ' + (await r.text()).slice(0, 300);
  });
  await attempt('createKey', async () => {
    const r = await fetch('/api/v2/keys', {
      method: 'POST', credentials: 'include',
      headers: Object.assign({ 'content-type': 'application/json' }, auth), body: '{}',
    });
    return r.status + ' ' + (await r.text()).slice(0, 300);
  });
  await attempt('createKeySimple', async () => {
    const r = await fetch('/api/v2/keys', {
      method: 'POST', credentials: 'include', mode: 'no-cors',
      headers: { 'content-type': 'text/plain' }, body: '{}',
    });
    return r.type;
  });
  document.body.setAttribute('data-result', JSON.stringify(out));
})();
</script></body></html>`;

describe('a mocked HTML page on the path form, in the dashboard’s browser', { skip: browserSkip() }, () => {
  let app: TestApp;
  let b: TestBrowser;
  let page: Page;

  before(async () => {
    app = await startApp({}, { listen: true, dashboardDir: WEB_DIR });
    await createEndpoint(app, 'evil');
    const r = await call(app, 'POST', '/endpoints/evil/rules', {
      method: 'GET',
      conditions: [{ type: 'path', operator: 'equals', value: '/page' }],
      action: { type: 'mock', headers: [{ key: 'content-type', value: 'text/html' }], body: ATTACK },
    });
    assert.equal(r.status, 201, r.text);
    b = await launchBrowser();
    page = await b.newPage();
    await page.goto(app.url + '/');
    await page.fill('input[name=apiKey]', ADMIN_KEY);
    await page.click('button[type=submit]');
    await page.locator('text=New endpoint').waitFor(WAIT);
  });
  after(async () => {
    await b?.close();
    await app?.stop();
  });

  async function resultOf(p: Page): Promise<Record<string, string>> {
    const body = p.locator('body[data-result]');
    await body.waitFor({ state: 'attached', ...WAIT });
    return JSON.parse((await body.getAttribute('data-result')) ?? '{}') as Record<string, string>;
  }

  function assertContained(out: Record<string, string>, how: string): void {
    const text = JSON.stringify(out);
    assert.ok(!text.includes(ADMIN_KEY), `${how}: the page read the key: ${text}`);
    // The sandbox gives the page an opaque origin: the dashboard's storage is not its own.
    assert.match(out['sessionStorage'] ?? '', /^blocked: SecurityError$/, `${how}: ${text}`);
    assert.match(out['localStorage'] ?? '', /^blocked: SecurityError$/, `${how}: ${text}`);
    assert.doesNotMatch(out['list'] ?? '', /^200/, `${how}: the page listed endpoints: ${text}`);
    assert.doesNotMatch(out['createKey'] ?? '', /^201/, `${how}: the page made a key: ${text}`);
  }

  it('opened in the dashboard’s tab: scripts run, the key and the API stay out of reach', async () => {
    const keysBefore = (await call(app, 'GET', '/keys')).body.data.length as number;
    await page.goto(app.url + '/e/evil/page');
    const out = await resultOf(page);
    assertContained(out, 'same tab');
    assert.equal((await call(app, 'GET', '/keys')).body.data.length, keysBefore, 'no key was made');
  });

  it('opened by the dashboard as a pop-up: the opener’s window is out of reach too', async () => {
    await page.goto(app.url + '/');
    await page.locator('text=New endpoint').waitFor(WAIT);
    const keysBefore = (await call(app, 'GET', '/keys')).body.data.length as number;
    const [popup] = await Promise.all([
      page.context().waitForEvent('page'),
      page.evaluate("void window.open('/e/evil/page')"),
    ]);
    const out = await resultOf(popup);
    assertContained(out, 'pop-up');
    assert.match(out['opener'] ?? '', /^blocked: SecurityError$/, JSON.stringify(out));
    await popup.close();
    assert.equal((await call(app, 'GET', '/keys')).body.data.length, keysBefore, 'no key was made');
    // The dashboard itself still works with its session.
    await page.goto(app.url + '/endpoints/evil/rules');
    await page.getByTestId('rule-row').first().waitFor(WAIT);
  });
});
