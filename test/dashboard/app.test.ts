/**
 * The dashboard in a real headless Chromium, as a new user goes through it: log in (a wrong key
 * first), create an endpoint, watch a request arrive live and open it, write a templated rule and see
 * the next request matched, delete that rule from a second page and see the first page's list follow,
 * upload an OpenAPI document, register a TOTP secret from a QR image, and read the API reference.
 * Screenshots of each screen go to test-results/.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import * as OTPAuth from 'otpauth';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { browserSkip, launchBrowser, screenshot, WEB_DIR, type TestBrowser } from '../helpers/browser.js';
import { qrPng } from '../totp/qr-fixtures.js';
import { SHOP_PROTO } from '../grpc/fixtures.js';

const WAIT = { timeout: 15_000 };

describe('dashboard in Chromium', { skip: browserSkip() }, () => {
  let app: TestApp;
  let b: TestBrowser;
  let page: Page;

  before(async () => {
    app = await startApp({}, { listen: true, dashboardDir: WEB_DIR });
    b = await launchBrowser();
    page = await b.newPage();
  });
  after(async () => {
    await b?.close();
    await app?.stop();
  });

  const send = (path: string, init: RequestInit = {}) => fetch(`${app.url}/e/shop${path}`, init);

  async function login(p: Page): Promise<void> {
    await p.goto(app.url + '/');
    await p.fill('input[name=apiKey]', ADMIN_KEY);
    await p.click('button[type=submit]');
    await p.locator('text=New endpoint').waitFor(WAIT);
  }

  it('says so when the key is wrong, then logs in with the right one', async () => {
    await page.goto(app.url + '/');
    await page.fill('input[name=apiKey]', 'mb_wrong_key_0123456789abcdefghijklmnop');
    await page.click('button[type=submit]');
    const error = page.getByTestId('error');
    await error.waitFor(WAIT);
    assert.match(await error.innerText(), /Wrong API key/);
    await screenshot(page, 'login-wrong-key');
    await login(page);
    // Logged in by an HttpOnly cookie (issue 30): the key is in no storage a script of this origin can read.
    const readable = await page.evaluate(
      '[document.cookie, JSON.stringify({ ...sessionStorage }), JSON.stringify({ ...localStorage })].join(" ")',
    );
    assert.ok(!String(readable).includes(ADMIN_KEY), `the key is readable by scripts: ${String(readable)}`);
    const cookie = (await page.context().cookies(app.url + '/api/v2')).find((c) => c.name === 'mb_session');
    assert.equal(cookie?.value, ADMIN_KEY);
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    assert.equal(cookie?.path, '/api');
  });

  it('creates an endpoint (the API validates the name) and shows its two URLs', async () => {
    await page.fill('input[name=endpointName]', 'Bad Name!');
    await page.click('text=Create');
    await page.getByTestId('error').waitFor(WAIT);
    await page.fill('input[name=endpointName]', 'shop');
    await page.click('text=Create');
    await page.waitForURL(/\/endpoints\/shop\/requests$/, WAIT);
    await page.goto(app.url + '/');
    const row = page.getByTestId('endpoint-shop');
    await row.waitFor(WAIT);
    const text = await row.innerText();
    assert.match(text, /shop\.localhost:\d+\//);
    assert.match(text, /\/e\/shop\//);
    await screenshot(page, 'endpoints');
    await page.click('a[href="/endpoints/shop/requests"]');
  });

  it('puts the path form first with a curl line, and the empty log shows the curl line to send one', async () => {
    const empty = page.getByTestId('empty-log');
    await empty.waitFor(WAIT);
    assert.match(await empty.innerText(), new RegExp(`curl ${app.url.replace(/[.]/g, '\\.')}/e/shop/`));
    await page.goto(app.url + '/');
    const row = page.getByTestId('endpoint-shop');
    await row.waitFor(WAIT);
    const codes = await row.locator('td.urls code').allInnerTexts();
    assert.equal(codes[0], `${app.url}/e/shop/`, 'the path form first');
    assert.equal(codes[1], `curl ${app.url}/e/shop/`);
    assert.match(codes[2]!, /^http:\/\/shop\.localhost:\d+\/$/, 'the sub-domain form after it');
    assert.match(await row.getByTestId('url-host').innerText(), /browsers and curl resolve/);
    await page.click('a[href="/endpoints/shop/requests"]');
  });

  it('shows a new request live, newest first, and its detail with JSON, headers and query', async () => {
    await page.getByTestId('request-log').waitFor(WAIT);
    await page.waitForTimeout(500); // the event stream connects
    const r = await send('/orders?page=2', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-trace': 'abc' },
      body: JSON.stringify({ item: 'book', qty: 2, nested: { deep: { deeper: true } } }),
    });
    assert.equal(r.status, 200);
    const row = page.getByTestId('request-row').first();
    await row.locator('td.path', { hasText: '/orders?page=2' }).waitFor(WAIT);
    assert.match(await row.innerText(), /POST[\s\S]*200[\s\S]*default/);
    await row.click();
    const detail = page.getByTestId('request-detail');
    await detail.waitFor(WAIT);
    const text = await detail.innerText();
    assert.match(text, /x-trace/);
    assert.match(text, /page\s+2/);
    assert.match(text, /"item"/);
    assert.ok(await detail.getByTestId('json-body').first().isVisible());
    await screenshot(page, 'request-log');
  });

  it('saves a templated rule from the JSON tab, and the next request is answered by it', async () => {
    await page.getByTestId('tab-rules').click();
    await page.getByTestId('new-rule').click();
    await page.getByTestId('tab-json').click();
    await page.fill(
      'textarea[name=ruleJson]',
      JSON.stringify({ method: 'GET', conditions: [], action: { type: 'mock' } }),
    );
    await page.getByTestId('save-rule').click();
    // The API's message is shown as it is.
    await page.getByTestId('error').waitFor(WAIT);
    const rule = {
      enabled: true,
      method: 'GET',
      description: 'greet by name',
      conditions: [{ type: 'path', operator: 'template', value: '/hello/:name' }],
      action: {
        type: 'mock',
        status: 201,
        headers: [{ key: 'Content-Type', value: 'application/json' }],
        body: '{"hello":"{{pathParam \'name\'}}","q":"{{queryParam \'q\'}}"}',
        templated: true,
        delay: 0,
      },
    };
    await page.fill('textarea[name=ruleJson]', JSON.stringify(rule, null, 2));
    await page.getByTestId('tab-form').click();
    assert.equal(await page.inputValue('input[name=description]'), 'greet by name');
    await screenshot(page, 'rule-editor');
    await page.getByTestId('save-rule').click();
    await page.getByTestId('rule-row').first().waitFor(WAIT);
    await screenshot(page, 'rules');

    const r = await send('/hello/ada?q=hi');
    assert.equal(r.status, 201);
    assert.deepEqual(await r.json(), { hello: 'ada', q: 'hi' });
    await page.getByTestId('tab-requests').click();
    const row = page.getByTestId('request-row').first();
    await row.locator('td.path', { hasText: '/hello/ada?q=hi' }).waitFor(WAIT);
    assert.match(await row.innerText(), /201[\s\S]*mock-rule/);
  });

  it("previews the rule's template against the request it answered", async () => {
    await page.getByTestId('tab-rules').click();
    const row = page.getByTestId('rule-row').first();
    await row.waitFor(WAIT);
    await row.getByRole('button', { name: 'Edit' }).click();
    const preview = page.getByTestId('template-preview');
    await preview.waitFor(WAIT);
    // The newest recorded request is chosen: GET /hello/ada?q=hi.
    for (let i = 0; (await page.inputValue('select[name=previewRequest]')) === ''; i++) {
      assert.ok(i < 100, 'the recorded requests never loaded');
      await page.waitForTimeout(50);
    }
    await page.getByTestId('render-preview').click();
    await page.getByTestId('preview-output').waitFor(WAIT);
    assert.equal(await page.getByTestId('preview-output').innerText(), '{"hello":"ada","q":"hi"}');
    assert.match(await page.getByTestId('preview-matched').innerText(), /matches the rule/);
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('drops a rule deleted in another browser page from the open list by itself', async () => {
    await page.getByTestId('tab-rules').click();
    await page.getByTestId('rule-row').first().waitFor(WAIT);
    await page.waitForTimeout(500); // the event stream connects
    const other = await b.newPage();
    await login(other);
    await other.goto(app.url + '/endpoints/shop/rules');
    await other.getByTestId('delete-rule').click();
    await other.getByTestId('delete-rule-confirm').click();
    await other.getByTestId('no-rules').waitFor(WAIT);
    await other.close();
    await page.getByTestId('no-rules').waitFor(WAIT);
    assert.equal(await page.getByTestId('rule-row').count(), 0);
  });

  it('uploads an OpenAPI document and lists the operations found', async () => {
    await page.getByTestId('tab-settings').click();
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Pets', version: '1.2.3' },
      paths: {
        '/pets': { get: { summary: 'List pets', responses: { 200: { description: 'ok' } } } },
        '/pets/{id}': {
          get: {
            operationId: 'getPet',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    };
    await page.setInputFiles('input[name=spec]', {
      name: 'pets.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(spec)),
    });
    const ops = page.getByTestId('operations');
    await ops.waitFor(WAIT);
    const text = await ops.innerText();
    assert.match(text, /\/pets\/\{id\}/);
    assert.match(text, /List pets/);
    assert.match(
      await page.getByTestId('tunnel-command').innerText(),
      /^mockingbird tunnel --endpoint 'shop' --port 3000 --server '/,
    );
    await screenshot(page, 'settings');
  });

  it('uploads a .proto in place of the document, lists its methods, and offers them to grpc_method conditions', async () => {
    await page.setInputFiles('input[name=spec]', {
      name: 'shop.proto',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(SHOP_PROTO),
    });
    const ops = page.getByTestId('operations');
    await page.locator('[data-testid=operations] >> text=Watch').waitFor(WAIT);
    const text = await ops.innerText();
    assert.match(text, /shop\.v1\.Shop\s+Get\s+unary/);
    assert.match(text, /Watch\s+server_streaming/);
    await page.getByTestId('tab-rules').click();
    await page.getByTestId('new-rule').click();
    await page.selectOption('[data-testid=condition] select[aria-label=type]', 'grpc_method');
    const value = page.locator('input[name=condition-0-value]');
    assert.equal(await value.getAttribute('list'), 'grpc-methods');
    // The editor reads the methods after it opens: the options come with that answer, all at once.
    await page
      .locator('#grpc-methods option')
      .first()
      .waitFor({ ...WAIT, state: 'attached' });
    const offered = await Promise.all(
      (await page.locator('#grpc-methods option').all()).map((o) => o.getAttribute('value')),
    );
    assert.deepEqual(offered, [
      'shop.v1.Shop/Get',
      'shop.v1.Shop/Watch',
      'shop.v1.Shop/Upload',
      'shop.v1.Shop/Chat',
    ]);
    await page.getByTestId('cancel-rule').click();
  });

  it('registers a TOTP secret from a QR image, labelled by issuer and account, kept across a reload', async () => {
    const secret = 'JBSWY3DPEHPK3PXP';
    const uri = `otpauth://totp/ACME:alice%40example.com?secret=${secret}&issuer=ACME`;
    await page.getByTestId('nav-totp').click();
    await page.setInputFiles('input[name=qrcode]', {
      name: 'screenshot-123.png',
      mimeType: 'image/png',
      buffer: await qrPng(uri),
    });
    const account = page.getByTestId('account').first();
    // The image is decoded in a worker thread started by this first upload: slower on a busy machine.
    await account.waitFor({ timeout: 60_000 }).catch(async (e: unknown) => {
      throw new Error(
        `no code after the QR upload; the page says: ${await page.locator('main').innerText()}`,
        { cause: e },
      );
    });
    assert.equal(await account.getByTestId('account-label').innerText(), 'ACME · alice@example.com');
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    const otp = await account.getByTestId('otp').innerText();
    assert.ok(
      [-1, 0, 1].some((w) => totp.generate({ timestamp: Date.now() + w * 30_000 }) === otp),
      otp,
    );
    assert.match(await account.getByTestId('countdown').innerText(), /expires in \d+ s/);
    await screenshot(page, 'totp');
    await page.reload();
    await page.getByTestId('account').first().waitFor(WAIT);
    assert.equal(await page.getByTestId('account-label').first().innerText(), 'ACME · alice@example.com');
  });

  it('renders the API reference with Swagger UI from this origin, with example values', async () => {
    await page.goto(app.url + '/api/v2/docs');
    await page.locator('.opblock').first().waitFor(WAIT);
    assert.ok((await page.locator('.opblock').count()) > 20);
    await page.locator('.opblock-summary-path', { hasText: '/endpoints/{ep}/rules/reorder' }).first().click();
    await page.locator('.opblock.is-open .example, .opblock.is-open .microlight').first().waitFor(WAIT);
    await screenshot(page, 'api-reference');
  });

  it('ran without a CSP violation or an uncaught error on any page', () => {
    const bad = b.errors.filter((e) => /Content.Security.Policy|Uncaught|TypeError|ReferenceError/i.test(e));
    assert.deepEqual(bad, []);
  });
});
