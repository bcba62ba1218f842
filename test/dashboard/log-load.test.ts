/**
 * The live log under load, in Chromium: with 10,000 requests in the history and 50 new requests a
 * second arriving, the time from sending a request to its row on screen stays under a second at
 * the 95th percentile (and every request shows up).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { HistoryEntry } from '../../src/store/index.js';
import { ADMIN_KEY, adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { browserSkip, launchBrowser, screenshot, WEB_DIR, type TestBrowser } from '../helpers/browser.js';

const HISTORY = 10_000;
const RATE = 50; // requests a second
const SECONDS = 8;

function entry(i: number, now: number): HistoryEntry {
  return {
    id: randomUUID(),
    endpoint: 'load',
    createdAt: now - (HISTORY - i) * 100,
    method: i % 3 === 0 ? 'POST' : 'GET',
    path: `/old/${i}?page=${i % 7}`,
    ip: '127.0.0.1',
    status: i % 10 === 0 ? 500 : 200,
    behavior: 'echo',
    ruleMatched: false,
    ruleId: null,
    durationMs: 1,
    requestHeaders: { 'content-type': 'application/json' },
    requestBody: `{"n":${i}}`,
    requestBodyTruncated: false,
    httpVersion: '1.1',
    isMultipart: false,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: '{"ok":true}',
    responseBodyTruncated: false,
    files: [],
    problems: [],
  };
}

// Records when each row's path first appears in the table (the browser's wall clock, as Node's).
const WATCH_ROWS = `
  window.__seen = {};
  new MutationObserver((records) => {
    const t = Date.now();
    for (const r of records)
      for (const n of r.addedNodes) {
        const p = n.querySelector && n.querySelector('td.path');
        if (p && !(p.textContent in window.__seen)) window.__seen[p.textContent] = t;
      }
  }).observe(document.querySelector('[data-testid=request-log] tbody'), { childList: true });
`;

describe('request log under load in Chromium', { skip: browserSkip() }, () => {
  let app: TestApp;
  let b: TestBrowser;
  let page: Page;

  before(async () => {
    app = await startApp({}, { listen: true, dashboardDir: WEB_DIR });
    const created = await app.inject({
      method: 'POST',
      url: '/api/v2/endpoints',
      headers: adminAuth,
      payload: { name: 'load' },
    });
    assert.equal(created.statusCode, 201);
    const now = Date.now();
    for (let i = 0; i < HISTORY; i += 500)
      await app.ctx.store.insertHistory(
        Array.from({ length: 500 }, (_, k) => ({ entry: entry(i + k, now), files: [] })),
      );
    b = await launchBrowser();
    page = await b.newPage();
  });
  after(async () => {
    await b?.close();
    await app?.stop();
  });

  it('shows each new request within a second (p95) while 50 a second arrive', async () => {
    await page.goto(app.url + '/');
    await page.fill('input[name=apiKey]', ADMIN_KEY);
    await page.click('button[type=submit]');
    await page.locator('text=New endpoint').waitFor({ timeout: 15_000 });
    await page.goto(app.url + '/endpoints/load/requests');
    await page.getByTestId('request-row').first().waitFor({ timeout: 15_000 });
    await page.evaluate(WATCH_ROWS);
    await page.waitForTimeout(1000); // the event stream connects

    const sent = new Map<string, number>();
    const inFlight: Promise<unknown>[] = [];
    const start = Date.now();
    for (let i = 0; i < RATE * SECONDS; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const path = `/live/${i}`;
      sent.set(path, Date.now());
      inFlight.push(fetch(`${app.url}/e/load${path}`).then((r) => r.arrayBuffer()));
    }
    await Promise.all(inFlight);
    await page.waitForTimeout(2000);
    const seen = await page.evaluate<Record<string, number>>('window.__seen');
    const latencies = [...sent].map(([path, t]) => (seen[path] === undefined ? Infinity : seen[path] - t));
    latencies.sort((x, y) => x - y);
    const p95 = latencies[Math.floor(latencies.length * 0.95)]!;
    const missing = latencies.filter((l) => l === Infinity).length;
    await screenshot(page, 'request-log-load');
    console.log(
      `log under load: ${sent.size} requests at ${RATE}/s over ${HISTORY} in history; ` +
        `p50 ${latencies[Math.floor(latencies.length / 2)]} ms, p95 ${p95} ms, max ${latencies.at(-1)} ms, missing ${missing}`,
    );
    assert.equal(missing, 0, 'every request reached the screen');
    assert.ok(p95 < 1000, `p95 ${p95} ms`);
    // Older pages still load by scrolling (the cursor over 10,000 entries).
    const before = await page.getByTestId('request-row').count();
    await page.locator('.sentinel').scrollIntoViewIfNeeded();
    const deadline = Date.now() + 15_000;
    while ((await page.getByTestId('request-row').count()) <= before) {
      assert.ok(Date.now() < deadline, 'scrolling down loads the next page');
      await page.waitForTimeout(200);
    }
  });
});
