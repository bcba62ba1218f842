// Regenerates the README's dashboard screenshots (docs/images/*.png): starts the built server on a
// temporary database, fills an endpoint with a few rules and requests, and photographs three screens
// in headless Chromium. Run `npm run build` first; CHROMIUM_PATH overrides /usr/bin/chromium.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { testConfig } from '../dist/config.js';
import { buildApp } from '../dist/server.js';

const KEY = 'mb_screenshots_0123456789abcdefghijklmnopqrstuv';
const OUT = join(import.meta.dirname, '..', 'docs', 'images');
const dataDir = mkdtempSync(join(tmpdir(), 'mockingbird-shots-'));
const app = await buildApp(testConfig({ dataDir, apiKey: KEY }));
await app.fastify.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.fastify.server.address().port}`;
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const call = (method, path, body) =>
  fetch(base + '/api/v2' + path, { method, headers: auth, body: body && JSON.stringify(body) });

const profile = mkdtempSync(join(tmpdir(), 'mockingbird-shots-chromium-'));
try {
  await call('POST', '/endpoints', { name: 'shop' });
  const mock = (status, body) => ({
    type: 'mock',
    status,
    headers: [{ key: 'Content-Type', value: 'application/json' }],
    body,
    templated: true,
  });
  for (const rule of [
    {
      method: 'GET',
      description: 'One user, named from the path',
      conditions: [{ type: 'path', operator: 'template', value: '/users/:id' }],
      action: mock(200, '{"id":"{{pathParam \'id\'}}","name":"{{faker.person.fullName}}"}'),
    },
    {
      method: 'POST',
      description: 'Orders are accepted',
      conditions: [{ type: 'path', operator: 'equals', value: '/orders' }],
      action: mock(201, '{"orderId":"{{faker.string.uuid}}","status":"accepted"}'),
    },
    {
      method: '*',
      description: 'Staging is down',
      conditions: [{ type: 'header', key: 'x-env', operator: 'equals', value: 'staging' }],
      action: mock(503, '{"error":"maintenance"}'),
    },
  ])
    await call('POST', '/endpoints/shop/rules', { enabled: true, ...rule });

  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    viewport: { width: 1400, height: 820 },
    colorScheme: 'light',
  });
  const page = await context.newPage();
  await page.goto(base + '/');
  await page.fill('input[name=apiKey]', KEY);
  await page.click('button[type=submit]');
  await page.getByTestId('endpoint-shop').waitFor();
  await page.goto(base + '/endpoints/shop/requests');
  await page.getByTestId('request-log').waitFor();
  await page.waitForTimeout(500);
  const send = (path, init) => fetch(`${base}/e/shop${path}`, init).then((r) => r.arrayBuffer());
  for (let i = 1; i <= 6; i++) await send(`/users/${i}?expand=orders`);
  await send('/orders', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'abc-123' },
    body: JSON.stringify({
      items: [{ sku: 'BOOK-1', qty: 2 }],
      customer: { id: 7, email: 'ada@example.com' },
    }),
  });
  await send('/health', { headers: { 'x-env': 'staging' } });
  await send('/unknown/path');
  await page.getByTestId('request-row').nth(8).waitFor();
  mkdirSync(OUT, { recursive: true });
  await page.locator('[data-testid=request-row]', { hasText: '/orders' }).click();
  await page.getByTestId('json-body').first().waitFor();
  await page.screenshot({ path: join(OUT, 'request-log.png') });
  await page.getByTestId('tab-rules').click();
  await page.getByTestId('rule-row').nth(2).waitFor();
  await page.screenshot({ path: join(OUT, 'rules.png') });
  await page.getByTestId('rule-row').first().getByText('Edit').click();
  await page.getByTestId('rule-editor').waitFor();
  await page.screenshot({ path: join(OUT, 'rule-editor.png') });
  await context.close();
  console.log(`screenshots written to ${OUT}`);
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
}
