/**
 * An exported HAR replayed by playwright-core's `routeFromHAR` in Chromium: with the server stopped,
 * the browser is answered from the HAR alone, with the recorded statuses, bodies and content types.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { browserSkip, launchBrowser, type TestBrowser } from '../helpers/browser.js';

const PAGE =
  '<!doctype html><html><head><title>Replayed</title></head><body><h1>From the HAR</h1></body></html>';

describe('an exported HAR in routeFromHAR', { skip: browserSkip() }, () => {
  let app: TestApp;
  let b: TestBrowser;
  let dir: string;
  before(async () => {
    app = await startApp({}, { listen: true });
    dir = mkdtempSync(join(tmpdir(), 'mockingbird-har-'));
  });
  after(async () => {
    await b?.close();
    await app.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the recorded requests with the recorded bodies once the server is gone', async () => {
    await createEndpoint(app, 'replay');
    const rule = (path: string, status: number, type: string, body: string) =>
      call(app, 'POST', '/endpoints/replay/rules', {
        method: 'GET',
        conditions: [{ type: 'path', operator: 'equals', value: path }],
        action: { type: 'mock', status, headers: [{ key: 'content-type', value: type }], body },
      });
    assert.equal((await rule('/page', 200, 'text/html; charset=utf-8', PAGE)).status, 201);
    assert.equal(
      (await rule('/api/items', 200, 'application/json', '{"items":["kettle","mug"]}')).status,
      201,
    );
    assert.equal((await rule('/api/missing', 404, 'application/json', '{"error":"gone"}')).status, 201);
    const base = `${app.url}/e/replay`;
    for (const path of ['/page', '/api/items?page=2', '/api/missing']) await fetch(base + path);

    const exported = await fetch(`${app.url}/api/v2/endpoints/replay/requests?format=har`, {
      headers: adminAuth,
    });
    assert.equal(exported.status, 200);
    const file = join(dir, 'replay.har');
    writeFileSync(file, await exported.text());
    await app.stop();

    b = await launchBrowser();
    const page = await b.newPage();
    await page.routeFromHAR(file, { notFound: 'abort' });
    const html = await page.goto(`${base}/page`);
    assert.equal(html?.status(), 200);
    assert.equal(await page.title(), 'Replayed');
    assert.equal(await page.textContent('h1'), 'From the HAR');
    const items = await page.goto(`${base}/api/items?page=2`);
    assert.equal(await items?.text(), '{"items":["kettle","mug"]}');
    assert.match(items?.headers()['content-type'] ?? '', /application\/json/);
    const missing = await page.goto(`${base}/api/missing`);
    assert.equal(missing?.status(), 404);
    assert.equal(await missing?.text(), '{"error":"gone"}');
    // Not in the HAR (and no server): aborted, not answered.
    await assert.rejects(page.goto(`${base}/api/other`));
  });
});
