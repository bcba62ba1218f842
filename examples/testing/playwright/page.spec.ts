import { expect, test } from '@playwright/test';
import { Mockingbird } from 'mockingbird-server/client';

// The server playwright.config.ts starts (webServer).
const mb = new Mockingbird({
  baseUrl: process.env.MOCKINGBIRD_URL ?? 'http://127.0.0.1:8787',
  apiKey: process.env.MOCKINGBIRD_API_KEY,
});
const weather = mb.endpoint('weather-page');

// The page under test, served by the mock here: it asks the weather API (the mock too) and shows the answer.
const app = `<!doctype html><title>Weather</title><p id="sky">…</p>
<script>
  fetch('forecast/Lyon')
    .then((res) => res.json())
    .then((f) => (document.getElementById('sky').textContent = f.city + ': ' + f.sky));
</script>`;

test.beforeAll(async () => {
  await mb.ensureEndpoint(weather.name);
  await weather.reset();
  // A path-form page has an origin of its own (a sandbox), so its calls to the mock are cross-origin.
  await weather.updateSettings({ cors: { origins: ['*'] } });
  await weather.replaceRules([
    {
      method: 'GET',
      conditions: [{ type: 'path', operator: 'equals', value: '/app/' }],
      action: {
        type: 'mock',
        status: 200,
        headers: [{ key: 'content-type', value: 'text/html' }],
        body: app,
      },
    },
    {
      method: 'GET',
      conditions: [{ type: 'path', operator: 'template', value: '/app/forecast/:city' }],
      action: {
        type: 'mock',
        status: 200,
        templated: true,
        headers: [{ key: 'content-type', value: 'application/json' }],
        body: `{"city":"{{pathParam 'city'}}","sky":"sunny"}`,
      },
    },
  ]);
});

test('the page shows the forecast the mock answers', async ({ page }) => {
  await page.goto(weather.url('/app/'));
  await expect(page.locator('#sky')).toHaveText('Lyon: sunny');

  // The history holds the page's call, made by the browser from the page's sandboxed origin.
  const call = await weather.request((await weather.waitForRequest({ path: '/app/forecast/Lyon' })).id);
  expect(call.status).toBe(200);
  expect(call.request?.headers['user-agent']).toContain('Chrome');
  expect(call.request?.headers['origin']).toBe('null');
});
