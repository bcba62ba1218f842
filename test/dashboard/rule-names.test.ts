/**
 * The request log names the rule that answered each request, in Chromium: by its description, by its
 * place in the order when it has none ("rule 2"), by the start of its id once it is deleted; in the list
 * and in the detail. The endpoint's rules are fetched once for the page (never once per row) and again
 * when a rule event says they changed, so an edit made elsewhere shows up in the open log.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { browserSkip, launchBrowser, screenshot, WEB_DIR, type TestBrowser } from '../helpers/browser.js';

const WAIT = { timeout: 15_000 };

describe('rule names in the request log, in Chromium', { skip: browserSkip() }, () => {
  let app: TestApp;
  let b: TestBrowser;
  let page: Page;
  const ids: string[] = [];
  /** Requests the page made for the endpoint's rules list. */
  const ruleFetches: string[] = [];

  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${app.url}/api/v2${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
    return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
  };
  const rule = (prefix: string, description?: string) => ({
    enabled: true,
    method: 'GET',
    ...(description === undefined ? {} : { description }),
    conditions: [{ type: 'path', operator: 'starts_with', value: prefix }],
    action: { type: 'mock', status: 200, headers: [], body: prefix, templated: false, delay: 0 },
  });
  /** The log row of the request to `path`. */
  const row = (path: string) =>
    page.getByTestId('request-row').filter({ has: page.locator('td.path', { hasText: path }) });
  const ruleCell = async (path: string) => (await row(path).getByTestId('row-rule').innerText()).trim();
  async function until(what: string, check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + WAIT.timeout;
    while (!(await check())) {
      assert.ok(Date.now() < deadline, what);
      await page.waitForTimeout(100);
    }
  }

  before(async () => {
    app = await startApp({}, { listen: true, dashboardDir: WEB_DIR });
    await call('POST', '/endpoints', { name: 'names' });
    for (const r of [rule('/a', 'Greets by name'), rule('/b'), rule('/c', 'Temporary')])
      ids.push(String((await call('POST', '/endpoints/names/rules', r))['id']));
    for (const p of ['/a/1', '/b/1', '/c/1', '/none']) {
      const res = await fetch(`${app.url}/e/names${p}`);
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
    b = await launchBrowser();
    page = await b.newPage();
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/v2/endpoints/names/rules') ruleFetches.push(r.url());
    });
    await page.goto(app.url + '/');
    await page.fill('input[name=apiKey]', ADMIN_KEY);
    await page.click('button[type=submit]');
    await page.locator('text=New endpoint').waitFor(WAIT);
  });
  after(async () => {
    await b?.close();
    await app?.stop();
  });

  it('shows the description, or "rule N" for a rule without one, with one fetch of the rules', async () => {
    await page.goto(app.url + '/endpoints/names/requests');
    await row('/none').waitFor(WAIT);
    await until('the rules never loaded', async () => (await ruleCell('/a/1')) === 'Greets by name');
    assert.equal(await ruleCell('/b/1'), 'rule 2');
    assert.equal(await ruleCell('/c/1'), 'Temporary');
    assert.equal(await ruleCell('/none'), '–');
    assert.match(
      (await row('/a/1').getByTestId('row-rule').getAttribute('title')) ?? '',
      new RegExp(ids[0]!),
    );
    assert.equal(
      ruleFetches.length,
      1,
      `one request for the rules, not one per row: ${ruleFetches.join(' ')}`,
    );
    await screenshot(page, 'rule-names');
  });

  it("names the rule in the request's detail, with its id", async () => {
    await row('/a/1').click();
    const rule = page.getByTestId('detail-rule');
    await rule.waitFor(WAIT);
    const text = await rule.innerText();
    assert.match(text, /^Greets by name/);
    assert.match(text, new RegExp(ids[0]!));
  });

  it('follows a rule described and a rule deleted elsewhere, without reloading the page', async () => {
    await page.waitForTimeout(500); // the event stream connects
    await call('PATCH', `/endpoints/names/rules/${ids[1]!}`, { description: 'Described later' });
    await until(
      'the new description never reached the log',
      async () => (await ruleCell('/b/1')) === 'Described later',
    );
    await call('DELETE', `/endpoints/names/rules/${ids[2]!}`);
    const gone = `${ids[2]!.slice(0, 8)} (deleted)`;
    await until(`the deleted rule is not shown as ${gone}`, async () => (await ruleCell('/c/1')) === gone);
    assert.equal(await ruleCell('/a/1'), 'Greets by name');
    await row('/c/1').click();
    await until('the detail does not follow', async () =>
      (await page.getByTestId('detail-rule').innerText()).startsWith(gone),
    );
  });
});
