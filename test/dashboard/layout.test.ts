/**
 * The dashboard's layout at a laptop's and a phone's size, in Chromium: the rule editor's Save and Cancel
 * are in view without scrolling when it opens on a long rule (1280x720 and 390x844), and at 390 px wide
 * the endpoint list, the rules, the request log (and a request's detail) and the rule editor scroll
 * nowhere sideways and no two cells of a row overlap.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { browserSkip, launchBrowser, screenshot, WEB_DIR, type TestBrowser } from '../helpers/browser.js';

const WAIT = { timeout: 15_000 };
const EP = 'layout-inventory-service';
const LAPTOP = { width: 1280, height: 720 };
const PHONE = { width: 390, height: 844 };

/** A rule as long as the form makes one: five conditions, four headers, a 60-line body. */
const LONG_RULE = {
  enabled: true,
  method: 'POST',
  description: 'A long rule: every condition and header the form shows',
  conditions: [
    { type: 'path', operator: 'template', value: '/orders/:id/items/:item' },
    { type: 'header', key: 'x-tenant', operator: 'equals', value: 'acme-corporation-international' },
    { type: 'query_param', key: 'expand', operator: 'contains', value: 'items' },
    { type: 'body', operator: 'contains', value: '"currency":"EUR"' },
    { type: 'query_param', key: 'debug', operator: 'exists' },
  ],
  action: {
    type: 'mock',
    status: 201,
    headers: [
      { key: 'Content-Type', value: 'application/json' },
      { key: 'X-Request-Id', value: "{{header 'x-request-id'}}", templated: true },
      { key: 'Cache-Control', value: 'no-store' },
      { key: 'X-Long-Header-Name-For-Testing', value: 'a rather long header value that goes on and on' },
    ],
    body: JSON.stringify(
      { items: Array.from({ length: 12 }, (_, i) => ({ id: i, name: `item ${i}`, price: i * 3 })) },
      null,
      2,
    ),
    templated: true,
    delay: 0,
  },
};

/**
 * Run in the page: what is wrong with the rows `rowSel` (their cells: the children matching `cellSel`)
 * at this width: the page scrolls sideways, a cell with content is squeezed to nothing or sticks out
 * of the window, or two cells of one row overlap. An empty list is a good layout.
 */
const layoutProblems = (rowSel: string, cellSel: string) => `(() => {
  const out = [];
  const width = window.innerWidth;
  if (document.documentElement.scrollWidth > width)
    out.push('the page scrolls sideways: scrollWidth ' + document.documentElement.scrollWidth + ' > ' + width);
  const rows = [...document.querySelectorAll(${JSON.stringify(rowSel)})];
  if (rows.length === 0) out.push('no row matches ${rowSel}');
  rows.forEach((row, r) => {
    const cells = [...row.querySelectorAll(${JSON.stringify(cellSel)})]
      .filter((c) => c.parentElement === row && getComputedStyle(c).display !== 'none')
      .map((c) => ({ c, box: c.getBoundingClientRect(), name: c.tagName + (c.className ? '.' + c.className : '') + ' "' + c.textContent.trim().slice(0, 20) + '"' }));
    for (const { box, name, c } of cells) {
      if ((box.width < 1 || box.height < 1) && c.textContent.trim() !== '')
        out.push('row ' + r + ': ' + name + ' is squeezed to ' + box.width + 'x' + box.height);
      if (box.left < -0.5 || box.right > width + 0.5)
        out.push('row ' + r + ': ' + name + ' spans ' + box.left + '..' + box.right + ', outside 0..' + width);
    }
    for (let i = 0; i < cells.length; i++)
      for (let j = i + 1; j < cells.length; j++) {
        const a = cells[i].box, b = cells[j].box;
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 0.5 && h > 0.5) out.push('row ' + r + ': ' + cells[i].name + ' overlaps ' + cells[j].name);
      }
  });
  return out;
})()`;

describe('dashboard layout in Chromium', { skip: browserSkip() }, () => {
  let app: TestApp;
  let b: TestBrowser;
  let page: Page;
  let ruleId = '';

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
    return (await res.json()) as Record<string, unknown>;
  };
  const check = async (what: string, rowSel: string, cellSel: string) => {
    const problems = await page.evaluate<string[]>(layoutProblems(rowSel, cellSel));
    assert.deepEqual(problems, [], `${what} at ${page.viewportSize()?.width} px`);
  };

  before(async () => {
    app = await startApp({}, { listen: true, dashboardDir: WEB_DIR });
    await call('POST', '/endpoints', { name: EP });
    ruleId = String((await call('POST', `/endpoints/${EP}/rules`, LONG_RULE))['id']);
    await call('POST', `/endpoints/${EP}/rules`, {
      enabled: false,
      method: 'GET',
      conditions: [{ type: 'path', operator: 'starts_with', value: '/a-path-prefix-long-enough-to-wrap/' }],
      action: { type: 'mock', status: 404, headers: [], body: '', templated: false, delay: 0 },
    });
    const sends: [string, RequestInit][] = [
      [
        '/orders/7/items/3?expand=items&debug',
        {
          method: 'POST',
          headers: { 'x-tenant': 'acme-corporation-international' },
          body: '{"currency":"EUR"}',
        },
      ],
      ['/some/rather/long/path/that/does/not/fit/on/a/phone/screen?with=a&query=string&page=2', {}],
      ['/', {}],
    ];
    for (const [path, init] of sends) {
      const res = await fetch(`${app.url}/e/${EP}${path}`, init);
      await res.arrayBuffer();
    }
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

  for (const size of [LAPTOP, PHONE])
    it(`shows Save and Cancel without scrolling when the editor opens on a long rule, at ${size.width}x${size.height}`, async () => {
      await page.setViewportSize(size);
      await page.goto(`${app.url}/endpoints/${EP}/rules`);
      await page.getByTestId('rule-row').first().getByRole('button', { name: 'Edit' }).click();
      await page.getByTestId('rule-editor').waitFor(WAIT);
      const editor = await page.getByTestId('rule-editor').boundingBox();
      assert.ok(
        editor && editor.height > size.height,
        `the rule is long enough to test (${editor?.height} px)`,
      );
      const description = `saved at ${size.width} px`;
      await page.fill('input[name=description]', description);
      for (const id of ['save-rule', 'cancel-rule']) {
        const box = await page.getByTestId(id).boundingBox();
        assert.ok(box, id);
        assert.ok(
          box.x >= 0 && box.y >= 0 && box.x + box.width <= size.width && box.y + box.height <= size.height,
          `${id} at ${JSON.stringify(box)} is outside the ${size.width}x${size.height} window`,
        );
        // Nothing covers it: the element at its centre is the button (or inside it).
        const hit = await page.evaluate<boolean>(
          `document.elementFromPoint(${box.x + box.width / 2}, ${box.y + box.height / 2})?.closest('[data-testid=${id}]') !== null`,
        );
        assert.ok(hit, `${id} is covered`);
      }
      await screenshot(page, `rule-editor-long-${size.width}`);
      // A real click at those coordinates, with no scrolling in between, saves.
      const save = (await page.getByTestId('save-rule').boundingBox())!;
      await page.mouse.click(save.x + save.width / 2, save.y + save.height / 2);
      await page.getByTestId('rules').waitFor(WAIT);
      const saved = await call('GET', `/endpoints/${EP}/rules/${ruleId}`);
      assert.equal(saved['description'], description);
      assert.equal((saved['conditions'] as unknown[]).length, 5, 'the rest of the rule is kept');
    });

  it('at 390 px, nothing scrolls sideways and no two cells of a row overlap', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(app.url + '/');
    await page.getByTestId(`endpoint-${EP}`).waitFor(WAIT);
    await check('the endpoint list', '[data-testid=endpoints] tbody tr', 'td');
    await screenshot(page, 'phone-endpoints');

    await page.goto(`${app.url}/endpoints/${EP}/rules`);
    await page.getByTestId('rule-row').first().waitFor(WAIT);
    await check('the rules', '[data-testid=rule-row]', '*');
    await check('the rules header', '.card > .row', '*');
    await screenshot(page, 'phone-rules');

    await page.getByTestId('rule-row').first().getByRole('button', { name: 'Edit' }).click();
    await page.getByTestId('rule-editor').waitFor(WAIT);
    await check('the rule editor', '[data-testid=rule-editor] .row', '*');
    await page.getByTestId('tab-json').click();
    await check('the rule editor (JSON)', '[data-testid=rule-editor] .row', '*');
    await page.getByTestId('cancel-rule').click();

    await page.goto(`${app.url}/endpoints/${EP}/requests`);
    await page.getByTestId('request-row').nth(2).waitFor(WAIT);
    await check('the request log', '[data-testid=request-row]', 'td');
    await screenshot(page, 'phone-request-log');
    await page.getByTestId('request-row').first().click();
    await page.getByTestId('request-detail').waitFor(WAIT);
    await check('the request detail', '[data-testid=request-detail] dl.facts', 'dt, dd');
  });
});
