/**
 * Issue 37 in the dashboard, in Chromium: Import HAR on the rules screen (the committed Chrome capture
 * previewed, duplicates and binary bodies shown as skipped, then imported and answering); the rule
 * editor's fault, delay distribution and dribble, read back from the API; the chaos and faults cards of
 * the settings screen; and the log's HAR and NDJSON exports.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { browserSkip, launchBrowser, screenshot, WEB_DIR, type TestBrowser } from '../helpers/browser.js';

const WAIT = { timeout: 15_000 };
const CHROME_HAR = fileURLToPath(new URL('../fixtures/har/chrome-capture.har', import.meta.url));

describe('faults and HAR in the dashboard, in Chromium', { skip: browserSkip() }, () => {
  let app: TestApp;
  let b: TestBrowser;
  let page: Page;

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
  const rulesOf = async (ep: string) =>
    (await call('GET', `/endpoints/${ep}/rules`))['data'] as {
      method: string;
      description?: string;
      action: Record<string, unknown>;
    }[];

  before(async () => {
    app = await startApp({}, { listen: true, dashboardDir: WEB_DIR });
    for (const name of ['har-ui', 'faults-ui']) await call('POST', '/endpoints', { name });
    // An existing rule the capture's GET /api/items/7 duplicates.
    await call('POST', '/endpoints/har-ui/rules', {
      method: 'GET',
      description: 'kept',
      conditions: [{ type: 'path', operator: 'equals', value: '/api/items/7' }],
      action: { type: 'mock', body: 'kept' },
    });
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

  it('imports a HAR: preview with the skipped entries, then the rules, which answer', async () => {
    await page.goto(app.url + '/endpoints/har-ui/rules');
    await page.getByTestId('import-har').click();
    await page.locator('input[name=har]').setInputFiles(CHROME_HAR);
    const preview = page.getByTestId('har-preview');
    await preview.waitFor(WAIT);
    // 8 entries: the PNG is binary, GET /api/items/7 duplicates the existing rule.
    assert.equal(await page.getByTestId('har-new-rules').locator('li').count(), 6);
    const skipped = await page.getByTestId('har-skipped').innerText();
    assert.match(skipped, /entry 1: binary response body/);
    assert.match(skipped, /entry 3: duplicate of an existing rule/);
    assert.match(await preview.innerText(), /GET \/api\/items\?page=1&size=2 → 200/);
    assert.equal((await rulesOf('har-ui')).length, 1, 'the preview created rules');
    await screenshot(page, 'har-import-preview');
    await page.getByTestId('har-confirm').click();
    await page.getByTestId('har-imported').waitFor(WAIT);
    assert.match(await page.getByTestId('har-imported').innerText(), /6 rule\(s\) created/);
    await page.getByTestId('rule-row').nth(6).waitFor(WAIT);
    assert.equal(await page.getByTestId('rule-row').count(), 7);
    const rules = await rulesOf('har-ui');
    assert.equal(rules.length, 7);
    assert.equal(rules[0]!.description, 'kept');
    const res = await fetch(`${app.url}/e/har-ui/api/items/404`);
    assert.equal(res.status, 404);
    assert.equal(await res.text(), '{"error":"no such item"}');
  });

  it('a HAR that is not JSON is refused in the browser, and one the API refuses shows its message', async () => {
    await page.goto(app.url + '/endpoints/har-ui/rules');
    await page.getByTestId('import-har').click();
    await page.locator('input[name=har]').setInputFiles({
      name: 'broken.har',
      mimeType: 'application/json',
      buffer: Buffer.from('{ not json'),
    });
    await page.getByTestId('har-import').getByTestId('error').waitFor(WAIT);
    assert.match(await page.getByTestId('har-import').innerText(), /broken\.har is not JSON/);
    assert.equal(await page.getByTestId('har-preview').count(), 0);
    // JSON that is no HAR: the API's 400, with the field, is shown as given.
    await page.locator('input[name=har]').setInputFiles({
      name: 'empty.har',
      mimeType: 'application/json',
      buffer: Buffer.from('{"log":{}}'),
    });
    await page.getByTestId('har-import').getByText('/log/entries').waitFor(WAIT);
    assert.equal(await page.getByTestId('har-preview').count(), 0);
  });

  it('a preview of a large HAR lists the first 100 rules and counts the rest', async () => {
    const entry = (i: number) => ({
      request: { method: 'GET', url: `http://capture.test/p/${i}`, headers: [] },
      response: { status: 200, headers: [], content: { text: String(i) } },
    });
    const har = { log: { entries: Array.from({ length: 150 }, (_, i) => entry(i)) } };
    await page.goto(app.url + '/endpoints/faults-ui/rules');
    await page.getByTestId('import-har').click();
    await page.locator('input[name=har]').setInputFiles({
      name: 'big.har',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(har)),
    });
    await page.getByTestId('har-preview').waitFor(WAIT);
    const list = page.getByTestId('har-new-rules').locator('li');
    assert.equal(await list.count(), 101);
    assert.equal(await list.last().innerText(), '… and 50 more');
    assert.match(await page.getByTestId('har-preview').innerText(), /150 rule\(s\) would be created/);
    await page.getByRole('button', { name: 'Close' }).click();
    assert.equal(await page.getByTestId('har-import').count(), 0);
  });

  it('the rule editor sets a fault, delay distributions and a dribble, as the API reads them back', async () => {
    await page.goto(app.url + '/endpoints/faults-ui/rules');
    await page.getByTestId('new-rule').click();
    await page.fill('input[name=description]', 'flaky');
    await page.selectOption('select[name=delay-kind]', 'lognormal');
    await page.fill('input[name=delay-median]', '40');
    await page.fill('input[name=delay-sigma]', '0.3');
    await page.fill('input[name=delay-max]', '250');
    await page.selectOption('select[name=fault]', 'random_data_then_close');
    await screenshot(page, 'rule-editor-faults');
    await page.getByTestId('save-rule').click();
    await page.getByTestId('rule-row').first().waitFor(WAIT);
    const [rule] = await rulesOf('faults-ui');
    assert.equal(rule!.action['fault'], 'random_data_then_close');
    assert.deepEqual(rule!.action['delay'], { distribution: 'lognormal', median: 40, sigma: 0.3, max: 250 });
    assert.equal(rule!.action['chunked'], undefined);

    // Reopened, the form shows them; a uniform delay, a dribble and no fault are saved back.
    await page.getByRole('button', { name: 'Edit' }).first().click();
    assert.equal(await page.inputValue('input[name=delay-median]'), '40');
    assert.equal(await page.inputValue('select[name=fault]'), 'random_data_then_close');
    await page.selectOption('select[name=delay-kind]', 'uniform');
    await page.fill('input[name=delay-min]', '5');
    await page.fill('input[name=delay-max]', '15');
    await page.selectOption('select[name=fault]', '');
    await page.check('input[name=chunked]');
    await page.fill('input[name=chunked-chunks]', '3');
    await page.fill('input[name=chunked-totalDuration]', '90');
    await page.getByTestId('save-rule').click();
    await page.getByTestId('rules').waitFor(WAIT);
    const [again] = await rulesOf('faults-ui');
    assert.deepEqual(again!.action['delay'], { distribution: 'uniform', min: 5, max: 15 });
    assert.equal(again!.action['fault'], undefined);
    assert.deepEqual(again!.action['chunked'], { chunks: 3, totalDuration: 90 });
    const res = await fetch(`${app.url}/e/faults-ui/x`);
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    assert.equal(await res.text(), '{}');
  });

  it('the editor shows the API’s refusal of a fault beside a dribble', async () => {
    await page.goto(app.url + '/endpoints/faults-ui/rules');
    await page.getByTestId('new-rule').click();
    await page.check('input[name=chunked]');
    await page.selectOption('select[name=fault]', 'timeout');
    await page.getByTestId('save-rule').click();
    const err = page.getByTestId('rule-editor').getByTestId('error');
    await err.waitFor(WAIT);
    assert.match(await err.innerText(), /\/action\/chunked/);
    assert.equal((await rulesOf('faults-ui')).length, 1);
  });

  it('the editor shows the API’s refusal of a distribution out of bounds', async () => {
    await page.goto(app.url + '/endpoints/faults-ui/rules');
    await page.getByTestId('new-rule').click();
    await page.selectOption('select[name=delay-kind]', 'uniform');
    await page.fill('input[name=delay-max]', '600001');
    await page.getByTestId('save-rule').click();
    const err = page.getByTestId('rule-editor').getByTestId('error');
    await err.waitFor(WAIT);
    assert.match(await err.innerText(), /\/action\/delay/);
    assert.equal((await rulesOf('faults-ui')).length, 1);
  });

  it('the chaos and faults cards save the settings, and an emptied field is removed', async () => {
    await page.goto(app.url + '/endpoints/faults-ui/settings');
    const chaos = page.getByTestId('settings-chaos');
    await chaos.waitFor(WAIT);
    await chaos.locator('input[name=chaos-percent]').fill('25');
    await chaos.locator('select[name=chaos-fault]').selectOption('timeout');
    await chaos.locator('input[name=chaos-seed]').fill('7');
    await chaos.locator('select[name=chaos-delay-kind]').selectOption('fixed');
    await chaos.locator('input[name=chaos-delay-value]').fill('30');
    await chaos.getByRole('button', { name: 'Save' }).click();
    await chaos.locator('text=Saved.').waitFor(WAIT);
    const faults = page.getByTestId('settings-faults');
    await faults.locator('select[name=faults-tunnel]').selectOption('empty_response');
    await faults.getByRole('button', { name: 'Save' }).click();
    await faults.locator('text=Saved.').waitFor(WAIT);
    let s = await call('GET', '/endpoints/faults-ui/settings');
    assert.deepEqual(s['chaos'], {
      percent: 25,
      fault: 'timeout',
      seed: 7,
      delay: { distribution: 'fixed', value: 30 },
    });
    assert.deepEqual(s['faults'], { tunnel: 'empty_response' });

    await page.reload();
    await chaos.waitFor(WAIT);
    assert.equal(await chaos.locator('input[name=chaos-seed]').inputValue(), '7');
    await chaos.locator('input[name=chaos-seed]').fill('');
    await chaos.locator('select[name=chaos-delay-kind]').selectOption('none');
    await chaos.getByRole('button', { name: 'Save' }).click();
    await chaos.locator('text=Saved.').waitFor(WAIT);
    s = await call('GET', '/endpoints/faults-ui/settings');
    assert.deepEqual(s['chaos'], { percent: 25, fault: 'timeout' });

    await chaos.locator('input[name=chaos-percent]').fill('101');
    await chaos.getByRole('button', { name: 'Save' }).click();
    await chaos.getByTestId('error').waitFor(WAIT);
    assert.match(await chaos.getByTestId('error').innerText(), /percent/);
  });

  it('the log offers the history as HAR and as NDJSON', async () => {
    await (await fetch(`${app.url}/e/har-ui/api/notes`)).text();
    await page.goto(app.url + '/endpoints/har-ui/requests');
    await page.getByTestId('export-ndjson').waitFor(WAIT);
    const got = async (testid: string) => {
      const href = await page.getByTestId(testid).getAttribute('href');
      assert.ok(href);
      return page.evaluate(async (h) => (await fetch(h)).text(), href);
    };
    const har = JSON.parse(await got('export-har')) as { log: { entries: unknown[] } };
    assert.ok(har.log.entries.length >= 1);
    const lines = (await got('export-ndjson')).trim().split('\n');
    assert.equal(lines.length, har.log.entries.length);
    assert.match((JSON.parse(lines[0]!) as { path: string }).path, /\/api\//);
  });
});
