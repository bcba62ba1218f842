/**
 * Contract checking in the dashboard, in Chromium (docs/contract-testing.md): a request that broke the
 * endpoint's OpenAPI document has a badge in the log (a live one too), its detail lists the request's
 * and the answer's violations, the log's "Contract" filter asks the API for `validation=failed`, and the
 * settings card of an OpenAPI document offers `openapi.validation` and saves it as a settings PATCH.
 * The entries are written through the history as the OpenAPI check records them.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { HistoryEntry } from '../../src/store/index.js';
import { ADMIN_KEY, adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { browserSkip, launchBrowser, screenshot, WEB_DIR, type TestBrowser } from '../helpers/browser.js';
import { entry } from '../helpers/history-fixtures.js';

const WAIT = { timeout: 15_000 };
const EP = 'contract';

describe('contract violations in the dashboard, in Chromium', { skip: browserSkip() }, () => {
  let app: TestApp;
  let b: TestBrowser;
  let page: Page;
  let t = Date.now() - 60_000;
  const at = (over: Partial<HistoryEntry>) => entry(EP, { createdAt: (t += 1000), ...over });

  before(async () => {
    app = await startApp({}, { listen: true, dashboardDir: WEB_DIR });
    const created = await app.inject({
      method: 'POST',
      url: '/api/v2/endpoints',
      headers: adminAuth,
      payload: { name: EP },
    });
    assert.equal(created.statusCode, 201, created.body);
    await app.ctx.store.insertHistory([
      at({ path: '/unchecked' }),
      at({ path: '/pets', validation: [], responseValidation: [] }),
      at({
        method: 'POST',
        path: '/pets?limit=x',
        status: 201,
        validation: [{ in: 'query', path: 'limit', message: 'must be integer' }],
        responseValidation: [{ in: 'body', path: '/id', message: 'must be string' }],
      }),
    ]);
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

  const row = (p: Page, path: string) => p.getByTestId('request-row').filter({ hasText: path });

  it('marks a request with violations in the log, and only that one', async () => {
    await page.goto(`${app.url}/endpoints/${EP}/requests`);
    await row(page, '/pets?limit=x').waitFor(WAIT);
    assert.equal(await page.getByTestId('request-row').count(), 3);
    const badges = page.getByTestId('violation-badge');
    assert.equal(await badges.count(), 1);
    assert.equal((await row(page, '/pets?limit=x').getByTestId('violation-badge').innerText()).trim(), '✗ 2');
    assert.equal(await row(page, '/unchecked').getByTestId('violation-badge').count(), 0);
  });

  it("the detail lists the request's and the answer's violations; a kept one says so", async () => {
    await row(page, '/pets?limit=x').click();
    const detail = page.getByTestId('detail-violations');
    await detail.waitFor(WAIT);
    assert.match(await page.getByTestId('request-violations').innerText(), /query limit: must be integer/);
    assert.match(await page.getByTestId('response-violations').innerText(), /body \/id: must be string/);
    await screenshot(page, 'contract-violations-detail');
    await row(page, '/pets').filter({ hasNotText: 'limit' }).click();
    await page.getByTestId('request-violations').filter({ hasText: 'kept the contract' }).waitFor(WAIT);
    await row(page, '/unchecked').click();
    await page.getByTestId('request-detail').filter({ hasText: '/unchecked' }).waitFor(WAIT);
    assert.equal(await page.getByTestId('detail-violations').count(), 0);
  });

  it('a live request with violations arrives with its badge', async () => {
    await page.waitForTimeout(500); // the event stream connects
    app.ctx.history.record(
      at({ path: '/live', validation: [{ in: 'header', path: 'x-api-key', message: 'is required' }] }),
    );
    await app.ctx.history.flush();
    await row(page, '/live').getByTestId('violation-badge').waitFor(WAIT);
    assert.equal((await row(page, '/live').getByTestId('violation-badge').innerText()).trim(), '✗ 1');
  });

  it('the Contract filter asks for validation=failed and shows only the broken requests', async () => {
    const asked = page.waitForRequest((r) => r.url().includes('validation=failed'));
    await page.selectOption('select[name=validation]', 'failed');
    await page.getByTestId('apply-filters').click();
    await asked;
    const deadline = Date.now() + WAIT.timeout;
    while ((await page.getByTestId('request-row').count()) !== 2) {
      assert.ok(Date.now() < deadline, 'the filtered list shows the two broken requests');
      await page.waitForTimeout(100);
    }
    const paths = await page.locator('[data-testid=request-row] td.path').allInnerTexts();
    assert.deepEqual(paths.sort(), ['/live', '/pets?limit=x']);
  });

  it('the OpenAPI card offers openapi.validation (report by default) and saves it with a PATCH', async () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Pets', version: '1' },
      paths: { '/pets': { get: { responses: { 200: { description: 'ok' } } } } },
    };
    const up = await app.inject({
      method: 'POST',
      url: `/api/v2/endpoints/${EP}/specs`,
      headers: { ...adminAuth, 'content-type': 'application/json' },
      payload: JSON.stringify(doc),
    });
    assert.equal(up.statusCode, 202, up.body);
    await page.getByTestId('tab-settings').click();
    const card = page.getByTestId('settings-validation');
    await card.waitFor(WAIT);
    const select = card.locator('select[name=validation]');
    assert.equal(await select.inputValue(), 'report');
    // The PATCH is answered here, as the server answers it once it takes the setting: the dashboard's
    // part is the request it sends and what it shows after.
    const sent: unknown[] = [];
    await page.route(`**/api/v2/endpoints/${EP}/settings`, async (route) => {
      if (route.request().method() !== 'PATCH') return route.fallback();
      sent.push(route.request().postDataJSON());
      const current = (
        await app.inject({
          method: 'GET',
          url: `/api/v2/endpoints/${EP}/settings`,
          headers: adminAuth,
        })
      ).json<Record<string, unknown>>();
      return route.fulfill({ json: { ...current, openapi: { validation: 'enforce' } } });
    });
    await select.selectOption('enforce');
    await card.locator('button[type=submit]').click();
    await card.locator('text=Saved.').waitFor(WAIT);
    assert.deepEqual(sent, [{ openapi: { validation: 'enforce' } }]);
    assert.equal(await select.inputValue(), 'enforce');
    await screenshot(page, 'contract-validation-setting');
  });

  it('ran without a CSP violation or an uncaught error', () => {
    const bad = b.errors.filter((e) => /Content.Security.Policy|Uncaught|TypeError|ReferenceError/i.test(e));
    assert.deepEqual(bad, []);
  });
});
